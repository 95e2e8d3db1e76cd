import Metrics
import OTLP
import XCTest

/// HdrHistogram → OTLP exponential histogram: counts exact, percentiles within one slot plus one bucket.
final class ExponentialBucketsTests: XCTestCase {
    /// The upper bound of the bucket holding the p-th sample, as a reader of the OTLP point computes it.
    func percentile(_ point: OTLPMetric.HistogramPoint, _ p: Double) -> Double {
        let rank = UInt64((p / 100 * Double(point.count)).rounded(.up))
        var seen = point.zeroCount
        if seen >= rank { return 0 }
        let base = pow(2.0, pow(2.0, -Double(point.scale)))
        for (i, c) in point.bucketCounts.enumerated() {
            seen += c
            if seen >= rank { return pow(base, Double(point.offset + i + 1)) }
        }
        return point.max
    }

    func testPercentilesAgreeWithTheHdrHistogramWithinItsPrecision() {
        var h = HdrHistogram()
        var x: UInt64 = 12345
        for _ in 0..<20_000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            h.record(Int64(200 + (x >> 33) % 2_000_000))
        }
        let point = ExponentialBuckets().point(h.sparse, attributes: [], startUnixNanos: 1, timeUnixNanos: 2)
        XCTAssertEqual(point.count, 20_000)
        XCTAssertEqual(point.bucketCounts.reduce(0, +) + point.zeroCount, 20_000)
        // 200 µs … 2 s is 13 octaves: scale 10 would need 13,600 buckets, so the point coarsens to scale 8.
        XCTAssertEqual(point.scale, 8)
        // One HdrHistogram slot (3 digits: under 1/1024) plus one exponential bucket.
        let error = 1.0 / 1024 + (pow(2.0, pow(2.0, -Double(point.scale))) - 1)
        for p in [50.0, 90, 99, 99.9] {
            let hdr = Double(h.value(atPercentile: p)) / 1e6
            let otlp = percentile(point, p)
            XCTAssertEqual(otlp, hdr, accuracy: hdr * error, "p\(p)")
        }
    }

    func testANarrowHistogramKeepsScaleTen() {
        var h = HdrHistogram()
        for v in stride(from: Int64(1_000), to: 3_000, by: 7) { h.record(v) }
        let point = ExponentialBuckets().point(h.sparse, attributes: [], startUnixNanos: 1, timeUnixNanos: 2)
        XCTAssertEqual(point.scale, 10)
        let error = 1.0 / 1024 + (pow(2.0, pow(2.0, -10.0)) - 1)
        for p in [50.0, 99] {
            let hdr = Double(h.value(atPercentile: p)) / 1e6
            XCTAssertEqual(percentile(point, p), hdr, accuracy: hdr * error, "p\(p)")
        }
    }

    func testAWideHistogramCoarsensToStayWithinTheBucketLimit() {
        var h = HdrHistogram()
        h.record(1)
        h.record(3_000_000_000)
        let point = ExponentialBuckets(maxBuckets: 512).point(h.sparse, attributes: [], startUnixNanos: 1,
                                                              timeUnixNanos: 2)
        XCTAssertLessThanOrEqual(point.bucketCounts.count, 512)
        XCTAssertLessThan(point.scale, 10)
        XCTAssertEqual(point.bucketCounts.first, 1)
        XCTAssertEqual(point.bucketCounts.last, 1)
    }

    func testBoundariesBelongToTheBucketTheyClose() {
        XCTAssertEqual(ExponentialBuckets.index(of: 1, scale: 0), -1)
        XCTAssertEqual(ExponentialBuckets.index(of: 2, scale: 0), 0)
        XCTAssertEqual(ExponentialBuckets.index(of: 3, scale: 0), 1)
        XCTAssertEqual(ExponentialBuckets.index(of: 4, scale: 1), 3)
        XCTAssertEqual(ExponentialBuckets.index(of: 4, scale: -1), 0)
        XCTAssertEqual(ExponentialBuckets.index(of: 5, scale: -1), 1)
    }

    func testAnEmptyHistogramHasNoBuckets() {
        let point = ExponentialBuckets().point(HdrHistogram().sparse, attributes: [], startUnixNanos: 1,
                                               timeUnixNanos: 2)
        XCTAssertEqual(point.count, 0)
        XCTAssertEqual(point.bucketCounts, [])
    }
}
