/// `latency`: holds every chunk for `latency` ms plus a uniform random `jitter` (± ms), keeping byte order.
///
/// Each chunk is due at its arrival plus its own delay, or after the chunk before it, whichever is later —
/// so a steady stream is shifted by the latency rather than slowed by it. The end of the stream follows the
/// last chunk.
public struct LatencyToxic: Toxic {
    public static let kind = "latency"
    public static let attributes = [
        ToxicAttribute("latency", default: 0, maximum: 3_600_000, unit: "ms", "delay added to every chunk"),
        ToxicAttribute("jitter", default: 0, maximum: 3_600_000, unit: "ms", "uniform random ± spread on the delay"),
    ]

    public let latencyNanos: Double
    public let jitterNanos: Double

    public init(attributes: [String: Double]) {
        latencyNanos = (attributes["latency"] ?? 0) * 1e6
        jitterNanos = (attributes["jitter"] ?? 0) * 1e6
    }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<Void>) {
        guard case .data(let bytes) = event else { return stub.pass(event) }
        let delay = max(0, latencyNanos + stub.random.nextSigned(jitterNanos))
        stub.forward(bytes, at: stub.now + UInt64(delay))
    }
}
