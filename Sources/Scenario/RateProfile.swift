/// The planned arrival rate as a piecewise-linear function of time, with its integral N(t) (the expected number
/// of arrivals by time t) and the inverse of that integral, which is what turns counts into arrival times.
struct RateProfile: Sendable, Equatable {
    /// One linear piece: the rate goes from `startRate` to `endRate` (per second) over `lengthNanos`.
    struct Segment: Sendable, Equatable {
        var startNanos: UInt64
        var lengthNanos: UInt64
        var startRate: Double
        var endRate: Double
        /// N(startNanos): expected arrivals before this segment.
        var countBefore: Double

        var seconds: Double { Double(lengthNanos) / 1e9 }
        /// Rate change per second, per second.
        var slope: Double { (endRate - startRate) / seconds }
        /// Expected arrivals within the segment (the trapezoid's area).
        var count: Double { (startRate + endRate) / 2 * seconds }

        /// Expected arrivals in the first `tau` seconds of the segment.
        func count(upTo tau: Double) -> Double {
            startRate * tau + slope * tau * tau / 2
        }
    }

    private(set) var segments: [Segment] = []
    /// Length of the arrival window.
    let totalNanos: UInt64

    /// Lays the stages end to end, cut at `totalNanos` (a ramp cut short ends at the rate it had reached) or
    /// extended to it at the last stage's final rate.
    init(stages: [LoadStage], totalNanos: UInt64) {
        self.totalNanos = totalNanos
        var start: UInt64 = 0
        var countBefore = 0.0
        var lastRate = 0.0
        func clean(_ rate: Double) -> Double { rate.isFinite && rate > 0 ? rate : 0 }
        func append(_ length: UInt64, _ from: Double, _ to: Double) {
            let segment = Segment(
                startNanos: start, lengthNanos: length, startRate: from, endRate: to, countBefore: countBefore
            )
            segments.append(segment)
            countBefore += segment.count
            start += length
        }
        for stage in stages where start < totalNanos && stage.nanos > 0 {
            let length = min(stage.nanos, totalNanos - start)
            let from = clean(stage.startRate)
            var to = clean(stage.endRate)
            if length < stage.nanos { to = from + (to - from) * Double(length) / Double(stage.nanos) }
            append(length, from, to)
            lastRate = clean(stage.endRate)
        }
        if start < totalNanos { append(totalNanos - start, lastRate, lastRate) }
    }

    /// Expected arrivals over the whole window.
    var totalCount: Double {
        segments.last.map { $0.countBefore + $0.count } ?? 0
    }

    /// Highest planned rate anywhere in the window, per second.
    var peakRate: Double {
        segments.reduce(0) { max($0, $1.startRate, $1.endRate) }
    }

    /// N(t): expected arrivals in [0, t].
    func count(at nanos: UInt64) -> Double {
        let t = min(nanos, totalNanos)
        // Binary search for the last segment starting at or before t.
        var low = 0, high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].startNanos <= t { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return 0 }
        let segment = segments[low - 1]
        let tau = Double(min(t - segment.startNanos, segment.lengthNanos)) / 1e9
        return segment.countBefore + segment.count(upTo: tau)
    }

    /// The time t with N(t) = `target`, or nil when the window ends first. `hint` is the segment to start
    /// searching from and is advanced, so walking increasing targets costs O(1) each.
    func time(whereCountIs target: Double, hint: inout Int) -> UInt64? {
        // Allow for rounding in the segment sums, so that e.g. the 500th call of 50/s for 10s lands at 10s.
        let tolerance = 1e-9 * max(1, target)
        while hint < segments.count, segments[hint].countBefore + segments[hint].count + tolerance < target {
            hint += 1
        }
        guard hint < segments.count else { return nil }
        let segment = segments[hint]
        let remaining = max(0, target - segment.countBefore)
        // Root of slope/2·τ² + a·τ − m = 0 written as 2m / (a + √(a² + 2·slope·m)): exact for holds and
        // ramps, free of cancellation whether the rate rises or falls, and it needs no special case for a = 0.
        let a = segment.startRate
        let discriminant = max(0, a * a + 2 * segment.slope * remaining)
        let denominator = a + discriminant.squareRoot()
        let tau = denominator > 0 ? 2 * remaining / denominator : 0
        let offset = min(UInt64(max(0, (tau * 1e9).rounded())), segment.lengthNanos)
        return segment.startNanos + offset
    }
}
