/// This machine's clock against a reference clock that reads in whole seconds (an HTTP `Date` header), NTP-free.
///
/// One answer bounds the offset to a one-second window: `reference <= local + offset < reference + 1`, with the
/// local time taken at the request's midpoint. Answers collected for a little over a second catch the reference's
/// second boundary, and intersecting their windows narrows the offset to about the spacing between answers plus
/// half the worst round trip. Pure arithmetic on the samples given, so it is tested without a server or a clock.
public struct ClockOffsetEstimate: Sendable, Equatable {
    public private(set) var samples = 0
    private var lower = -Double.infinity
    private var upper = Double.infinity
    private var worstRoundTrip = 0.0

    public init() {}

    /// One answer: the local instants the request was sent and answered (seconds, any epoch shared with the
    /// reference), and the whole second the reference reported.
    public mutating func add(sentSeconds: Double, receivedSeconds: Double, referenceSecond: Double) {
        samples += 1
        let midpoint = (sentSeconds + receivedSeconds) / 2
        worstRoundTrip = max(worstRoundTrip, receivedSeconds - sentSeconds)
        lower = max(lower, referenceSecond - midpoint)
        upper = min(upper, referenceSecond + 1 - midpoint)
    }

    /// `reference ≈ local + offsetSeconds`; nil before the first answer.
    public var offsetSeconds: Double? {
        guard samples > 0 else { return nil }
        return (bounds.lower + bounds.upper) / 2
    }

    /// Half the window the answers leave, plus half the worst round trip; nil before the first answer.
    public var uncertaintySeconds: Double? {
        guard samples > 0 else { return nil }
        return (bounds.upper - bounds.lower) / 2 + worstRoundTrip / 2
    }

    /// Windows that do not overlap mean the reference stepped while it was read: keep the span between them.
    private var bounds: (lower: Double, upper: Double) {
        lower > upper ? (upper, lower) : (lower, upper)
    }
}
