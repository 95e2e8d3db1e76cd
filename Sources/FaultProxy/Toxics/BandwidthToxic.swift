/// `bandwidth`: lets at most `rate` KB/s (1 KB = 1000 bytes) through, in pieces of about 20 ms worth.
///
/// A piece leaves when the one before it has had its time on the wire, so a burst is spread out at the rate
/// and an idle link does not save up credit.
public struct BandwidthToxic: Toxic {
    public static let kind = "bandwidth"
    public static let attributes = [
        ToxicAttribute("rate", default: 1000, minimum: 0.001, unit: "KB/s", "largest rate let through (1 KB = 1000 bytes)"),
    ]

    public struct State {
        /// When the link is free for the next piece.
        var freeAt: UInt64 = 0
    }

    public let bytesPerSecond: Double

    public init(attributes: [String: Double]) {
        bytesPerSecond = (attributes["rate"] ?? 1000) * 1000
    }

    public func makeState() -> State { State() }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<State>) {
        guard case .data(let bytes) = event else { return stub.pass(event) }
        let piece = max(1, Int(bytesPerSecond * 0.02))
        var at = max(stub.now, stub.state.freeAt)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            at += UInt64(Double(end - offset) / bytesPerSecond * 1e9)
            stub.forward(Array(bytes[offset..<end]), at: at)
            offset = end
        }
        stub.state.freeAt = at
    }
}
