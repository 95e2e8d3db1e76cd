import Foundation
import Metrics

/// Turns an HdrHistogram (microseconds) into an OTLP exponential histogram point (seconds).
///
/// Each HdrHistogram slot's samples go to the exponential bucket holding the slot's middle value. The scale is the
/// finest (at most `maxScale`) whose buckets from the smallest to the largest sample number at most `maxBuckets`:
/// at scale 10 a bucket is 0.068 % wide, finer than a 3-digit HdrHistogram's slots (under 0.1 %), so the export
/// keeps the histogram's precision; a histogram spanning many octaves coarsens to stay within `maxBuckets` (a
/// point's buckets are a dense array, and collectors cap a message's size). Percentiles read from the point are
/// within one slot plus one bucket of the report's.
public struct ExponentialBuckets: Sendable {
    public var maxScale: Int
    public var maxBuckets: Int

    public init(maxScale: Int = 10, maxBuckets: Int = 4096) {
        self.maxScale = maxScale
        self.maxBuckets = maxBuckets
    }

    /// The bucket index of `value` (> 0) at `scale`: bucket i holds (base^i, base^(i+1)], base = 2^(2^-scale).
    public static func index(of value: Double, scale: Int) -> Int {
        // log2 of a power of two is exact, so a value on a boundary lands in the bucket it closes.
        Int((log2(value) * Double(sign: .plus, exponent: scale, significand: 1)).rounded(.up)) - 1
    }

    /// The point for `histogram`, whose values are microseconds, in seconds.
    public func point(_ histogram: SparseHistogram, attributes: [OTLPAttribute], startUnixNanos: UInt64,
                      timeUnixNanos: UInt64) -> OTLPMetric.HistogramPoint {
        var zeroCount: UInt64 = 0
        var slots: [(seconds: Double, count: UInt64)] = []
        histogram.forEachSlot { lowest, highest, count in
            if highest == 0 {
                zeroCount += UInt64(count)
            } else {
                slots.append((Double(lowest + (highest - lowest) / 2) / 1e6, UInt64(count)))
            }
        }
        var scale = maxScale
        if let first = slots.first, let last = slots.last {
            while scale > -10,
                  Self.index(of: last.seconds, scale: scale) - Self.index(of: first.seconds, scale: scale) >= maxBuckets {
                scale -= 1
            }
        }
        var offset = 0
        var counts: [UInt64] = []
        if let first = slots.first {
            offset = Self.index(of: first.seconds, scale: scale)
            for slot in slots {
                let at = Self.index(of: slot.seconds, scale: scale) - offset
                if at >= counts.count { counts.append(contentsOf: repeatElement(0, count: at - counts.count + 1)) }
                counts[at] += slot.count
            }
        }
        return OTLPMetric.HistogramPoint(
            attributes: attributes, startUnixNanos: startUnixNanos, timeUnixNanos: timeUnixNanos,
            count: UInt64(histogram.totalCount), sum: histogram.mean * Double(histogram.totalCount) / 1e6,
            scale: scale, zeroCount: zeroCount, offset: offset, bucketCounts: counts,
            min: Double(histogram.min) / 1e6, max: Double(histogram.max) / 1e6)
    }
}
