/// What one end received from the far end's RTP source: the sequence books (loss, duplicates, reordering; RFC
/// 3550 A.1/A.3), interarrival jitter (A.8), when the first and last packets came, payload octets, and, when the
/// payload carries callstorm's signature and both ends share one monotonic clock (one machine), the one-way
/// transit time of each packet.
public struct RTPReceiverStatistics: Sendable, Equatable {
    public private(set) var sequence = SequenceTracker()
    public private(set) var jitter: JitterEstimator
    public private(set) var firstArrivalNanos: UInt64?
    public private(set) var lastArrivalNanos: UInt64?
    public private(set) var octets = 0
    public private(set) var transit = TransitTimes()
    /// Expected and received at the last RTCP report block.
    private var mark = SequenceTracker.Interval()

    public init(clockRate: Int = MediaCodec.clockRate) {
        jitter = JitterEstimator(clockRate: clockRate)
    }

    public var received: Int { sequence.received }
    public var expected: Int { sequence.expected }
    public var lost: Int { sequence.lost }
    /// Cumulative loss in percent of expected (0 before anything was expected, never below 0).
    public var lossPercent: Double { expected == 0 ? 0 : Double(max(0, lost)) * 100 / Double(expected) }

    /// Counts one packet with this header and `payloadBytes` that arrived at `arrivalNanos`, sent at `sentNanos`
    /// by the signature (nil: unknown). Duplicates and a pending jump count nowhere else.
    @discardableResult
    public mutating func note(sequence number: UInt16, timestamp: UInt32, payloadBytes: Int, arrivalNanos: UInt64,
                              sentNanos: UInt64? = nil) -> SequenceTracker.Verdict {
        let verdict = sequence.note(number)
        switch verdict {
        case .duplicate, .jumpPending:
            return verdict
        case .inOrder, .late, .restarted:
            break
        }
        if firstArrivalNanos == nil { firstArrivalNanos = arrivalNanos }
        lastArrivalNanos = arrivalNanos
        octets += payloadBytes
        if verdict == .restarted { jitter.restart() }
        jitter.note(arrivalNanos: arrivalNanos, timestamp: timestamp)
        if let sentNanos, arrivalNanos >= sentNanos { transit.record(arrivalNanos - sentNanos) }
        return verdict
    }

    /// The report block an RR or SR carries for `ssrc` now; starts the next interval for its fraction lost.
    public mutating func takeReportBlock(ssrc: UInt32, lastSenderReport: UInt32 = 0,
                                         delaySinceLastSenderReport: UInt32 = 0) -> RTCPReportBlock {
        let (fraction, next) = sequence.interval(since: mark)
        mark = next
        return RTCPReportBlock(ssrc: ssrc, fractionLost: fraction,
                               cumulativeLost: Int32(clamping: lost),
                               extendedHighestSequence: sequence.extendedHighest,
                               jitter: UInt32(jitter.jitter.rounded()), lastSenderReport: lastSenderReport,
                               delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}

/// One-way transit times read from payload signatures (meaningful only when sender and receiver share a clock).
public struct TransitTimes: Sendable, Equatable {
    public private(set) var count = 0
    public private(set) var totalNanos: UInt64 = 0
    public private(set) var maxNanos: UInt64 = 0

    public init() {}

    public mutating func record(_ nanos: UInt64) {
        count += 1
        totalNanos &+= nanos
        maxNanos = max(maxNanos, nanos)
    }

    public var meanMillis: Double? { count == 0 ? nil : Double(totalNanos) / Double(count) / 1e6 }
}
