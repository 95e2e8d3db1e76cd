/// Packets, bytes (UDP payload: RTP header included) and errors, as rtpengine counts them on a stream or a call.
public struct RTPEngineCounts: Equatable, Sendable {
    public var packets: Int
    public var bytes: Int
    public var errors: Int

    public init(packets: Int = 0, bytes: Int = 0, errors: Int = 0) {
        self.packets = packets
        self.bytes = bytes
        self.errors = errors
    }

    /// The counts in an ng `stats`-shaped dictionary (`packets`, `bytes`, `errors`); absent fields count 0.
    init(_ value: Bencode?) {
        self.init(packets: value?["packets"]?.int ?? 0, bytes: value?["bytes"]?.int ?? 0,
                  errors: value?["errors"]?.int ?? 0)
    }

    public static func + (lhs: RTPEngineCounts, rhs: RTPEngineCounts) -> RTPEngineCounts {
        RTPEngineCounts(packets: lhs.packets + rhs.packets, bytes: lhs.bytes + rhs.bytes,
                        errors: lhs.errors + rhs.errors)
    }
}

/// An address and port as rtpengine reports one (`endpoint`, `advertised endpoint`).
public struct RTPEngineEndpoint: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var address: String
    public var port: Int

    public init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    /// nil when the dictionary is absent or names no address yet (a side rtpengine has not heard from).
    init?(_ value: Bencode?) {
        guard let address = value?["address"]?.text, !address.isEmpty, let port = value?["port"]?.int else {
            return nil
        }
        self.init(address: address, port: port)
    }

    public var description: String { "\(address):\(port)" }
}
