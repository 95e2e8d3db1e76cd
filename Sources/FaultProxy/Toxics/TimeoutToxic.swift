/// `timeout`: a blackhole. Nothing more gets through (data and the end of the stream are swallowed), and the
/// connection is closed `timeout` ms after the toxic started on it; 0 keeps it open until a peer gives up.
public struct TimeoutToxic: Toxic {
    public static let kind = "timeout"
    public static let attributes = [
        ToxicAttribute("timeout", default: 0, maximum: 86_400_000, unit: "ms", "close after this long; 0 = never"),
    ]

    public let timeoutNanos: UInt64

    public init(attributes: [String: Double]) {
        timeoutNanos = UInt64((attributes["timeout"] ?? 0) * 1e6)
    }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<Void>) {
        switch event {
        case .start: if timeoutNanos > 0 { stub.wake(at: stub.now + timeoutNanos) }
        case .data(let bytes): stub.drop(bytes)
        case .end: break
        case .wake: stub.closeConnection()
        }
    }
}
