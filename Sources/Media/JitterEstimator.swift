/// RFC 3550 interarrival jitter (§6.4.1, Appendix A.8): for packets i-1 and i, D = (R_i − R_{i-1}) − (S_i −
/// S_{i-1}), arrival and RTP timestamps in timestamp units; J += (|D| − J) / 16 on each packet after the first.
///
/// D is taken from differences, so neither the 32-bit RTP timestamp's wrap nor a large arrival clock matters;
/// J is kept as a Double (A.8 keeps it as an integer scaled by 16, which rounds the same trace within 1/16 unit).
public struct JitterEstimator: Sendable, Equatable {
    public let clockRate: Int
    /// J, in timestamp units.
    public private(set) var jitter: Double = 0
    /// The highest J seen.
    public private(set) var maxJitter: Double = 0
    private var lastArrivalNanos: UInt64?
    private var lastTimestamp: UInt32 = 0

    public init(clockRate: Int = MediaCodec.clockRate) {
        self.clockRate = clockRate
    }

    /// J in milliseconds.
    public var jitterMillis: Double { jitter * 1_000 / Double(clockRate) }
    public var maxJitterMillis: Double { maxJitter * 1_000 / Double(clockRate) }

    /// The source restarted (a new sequence, and timestamps with no relation to the old ones): the next packet
    /// starts a new trace, J kept; a difference across the restart would be a spike no network made.
    public mutating func restart() {
        lastArrivalNanos = nil
    }

    /// Takes packet i: its arrival on the receiver's clock and its RTP timestamp.
    public mutating func note(arrivalNanos: UInt64, timestamp: UInt32) {
        defer {
            lastArrivalNanos = arrivalNanos
            lastTimestamp = timestamp
        }
        guard let lastArrivalNanos else { return }
        let arrivalUnits = (Double(arrivalNanos) - Double(lastArrivalNanos)) * Double(clockRate) / 1e9
        let sentUnits = Double(Int32(bitPattern: timestamp &- lastTimestamp))
        let d = arrivalUnits - sentUnits
        jitter += (abs(d) - jitter) / 16
        maxJitter = max(maxJitter, jitter)
    }
}
