/// `slow_close`: holds the end of the stream (the FIN) for `delay` ms; data passes unchanged.
public struct SlowCloseToxic: Toxic {
    public static let kind = "slow_close"
    public static let attributes = [
        ToxicAttribute("delay", default: 0, maximum: 3_600_000, unit: "ms", "how long the close is held back"),
    ]

    public let delayNanos: UInt64

    public init(attributes: [String: Double]) {
        delayNanos = UInt64((attributes["delay"] ?? 0) * 1e6)
    }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<Void>) {
        guard case .end = event else { return stub.pass(event) }
        stub.forwardEnd(at: stub.now + delayNanos)
    }
}
