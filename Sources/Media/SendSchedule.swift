/// When one stream sends: every `intervalNanos` (20 ms) from its start, each packet planned at start + n ×
/// interval whatever the last one's lateness (wrk2's rule: a late loop must not move the plan), and each send's
/// lag behind its plan measured (`SendLag`), so jitter the harness itself causes is reported beside the network's
/// and never blamed on it.
///
/// A late loop sends the packets it owes at once, each with its planned slot's RTP timestamp: the receiver then
/// sees the harness's lag as jitter, and the report shows the same lag on the sending side.
public struct SendSchedule: Sendable, Equatable {
    /// One planned send.
    public struct Slot: Sendable, Equatable {
        /// Slots since the start (the RTP timestamp is the stream's base + index × samples per packet).
        public var index: UInt64
        public var plannedNanos: UInt64
        public var lagNanos: UInt64

        public init(index: UInt64, plannedNanos: UInt64, lagNanos: UInt64) {
            self.index = index
            self.plannedNanos = plannedNanos
            self.lagNanos = lagNanos
        }
    }

    public let intervalNanos: UInt64
    public let startNanos: UInt64
    /// The next slot to send.
    public private(set) var nextIndex: UInt64 = 0
    public private(set) var lag = SendLag()

    public init(startNanos: UInt64, intervalNanos: UInt64 = MediaCodec.packetNanos) {
        self.startNanos = startNanos
        self.intervalNanos = max(1, intervalNanos)
    }

    /// The planned instant of the next send.
    public var nextDue: UInt64 { startNanos &+ nextIndex &* intervalNanos }

    /// The next slot due at `now`, if one is (call until nil), its lag recorded.
    public mutating func take(now: UInt64) -> Slot? {
        let planned = nextDue
        guard now >= planned else { return nil }
        nextIndex += 1
        lag.record(now - planned)
        return Slot(index: nextIndex - 1, plannedNanos: planned, lagNanos: now - planned)
    }

    /// Skips every slot before `now` without sending (a stream that stops sending for a hold and starts again
    /// keeps its RTP clock running: the next packet carries the timestamp of its time, RFC 3550 §5.1).
    public mutating func skip(to now: UInt64) {
        guard now > startNanos else { return }
        nextIndex = max(nextIndex, (now - startNanos + intervalNanos - 1) / intervalNanos)
    }
}

/// The lag of a stream's sends behind their plan: count, total, maximum and a small log histogram, enough for a
/// p99 within its bucket (the Driver records each lag into its HdrHistograms when it wants exact percentiles).
public struct SendLag: Sendable, Equatable {
    /// Upper bounds of the buckets in microseconds; the last bucket is everything above the last bound.
    public static let boundsMicros: [UInt64] = [50, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000]

    public private(set) var count = 0
    public private(set) var totalNanos: UInt64 = 0
    public private(set) var maxNanos: UInt64 = 0
    public private(set) var buckets = [Int](repeating: 0, count: SendLag.boundsMicros.count + 1)

    public init() {}

    public mutating func record(_ nanos: UInt64) {
        count += 1
        totalNanos &+= nanos
        maxNanos = max(maxNanos, nanos)
        let micros = nanos / 1_000
        var i = 0
        while i < Self.boundsMicros.count, micros > Self.boundsMicros[i] { i += 1 }
        buckets[i] += 1
    }

    /// The upper bound (ns) of the bucket holding the `quantile` (0...1) lag; `maxNanos` for the last bucket.
    public func upperBoundNanos(atQuantile quantile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = Int((Double(count) * min(1, max(0, quantile))).rounded(.up))
        var seen = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            guard seen >= max(1, rank) else { continue }
            return i < Self.boundsMicros.count ? min(Self.boundsMicros[i] * 1_000, maxNanos) : maxNanos
        }
        return maxNanos
    }

    public mutating func merge(_ other: SendLag) {
        count += other.count
        totalNanos &+= other.totalNanos
        maxNanos = max(maxNanos, other.maxNanos)
        for i in buckets.indices { buckets[i] += other.buckets[i] }
    }
}
