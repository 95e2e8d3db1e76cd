/// `slicer`: cuts the stream into slices of `average_size` ± `size_variation` bytes, `delay` µs apart, so the
/// receiver sees many small reads (parsers that assume one read is one message break here).
public struct SlicerToxic: Toxic {
    public static let kind = "slicer"
    public static let attributes = [
        ToxicAttribute("average_size", default: 16, minimum: 1, unit: "bytes", "mean slice size"),
        ToxicAttribute("size_variation", default: 0, unit: "bytes", "uniform ± spread on the slice size"),
        ToxicAttribute("delay", default: 0, maximum: 60_000_000, unit: "µs", "gap between slices"),
    ]

    public struct State {
        /// When the next slice may leave.
        var nextAt: UInt64 = 0
    }

    public let averageSize: Double
    public let sizeVariation: Double
    public let delayNanos: UInt64

    public init(attributes: [String: Double]) {
        averageSize = attributes["average_size"] ?? 16
        // A spread as large as the mean would allow empty slices; keep every slice at least one byte.
        sizeVariation = min(attributes["size_variation"] ?? 0, max(0, averageSize - 1))
        delayNanos = UInt64((attributes["delay"] ?? 0) * 1e3)
    }

    public func makeState() -> State { State() }

    public func pipe(_ event: ToxicEvent, stub: inout ToxicStub<State>) {
        guard case .data(let bytes) = event else { return stub.pass(event) }
        var at = max(stub.now, stub.state.nextAt)
        var offset = 0
        while offset < bytes.count {
            let size = max(1, Int((averageSize + stub.random.nextSigned(sizeVariation)).rounded()))
            let end = min(bytes.count, offset + size)
            stub.forward(Array(bytes[offset..<end]), at: at)
            at += delayNanos
            offset = end
        }
        stub.state.nextAt = at
    }
}
