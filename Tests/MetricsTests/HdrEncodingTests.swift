import Determinism
import XCTest
@testable import Metrics

final class HdrEncodingTests: XCTestCase {
    func testV2EncodingRoundTripsEverySlotAndCount() throws {
        var histogram = HdrHistogram()
        var generator = SeededRandom(splitMix: 3)
        for _ in 0..<5_000 { histogram.record(Int64.random(in: 0...5_000_000, using: &generator)) }
        histogram.record(3_600_000_000)
        let decoded = try HdrEncoding.decode(histogram.encodedV2())
        XCTAssertEqual(decoded.sparse.indices, histogram.sparse.indices)
        XCTAssertEqual(decoded.sparse.counts, histogram.sparse.counts)
        XCTAssertEqual(decoded.totalCount, histogram.totalCount)
    }

    func testHeaderFollowsTheV2Layout() {
        var histogram = HdrHistogram(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000,
                                     significantDigits: 3)
        histogram.record(5)
        let bytes = histogram.encodedV2()
        XCTAssertEqual(Array(bytes[0..<4]), [0x1c, 0x84, 0x93, 0x03], "V2 encoding cookie")
        XCTAssertEqual(HdrEncoding.readBigEndian(bytes, at: 4, bytes: 4), UInt64(bytes.count - 40), "payload length")
        XCTAssertEqual(HdrEncoding.readBigEndian(bytes, at: 12, bytes: 4), 3, "significant digits")
        XCTAssertEqual(HdrEncoding.readBigEndian(bytes, at: 24, bytes: 8), 3_600_000_000)
        XCTAssertEqual(HdrEncoding.readBigEndian(bytes, at: 32, bytes: 8), (1.0 as Double).bitPattern)
        // Five empty slots as one run (-5 → ZigZag 9), then the count 1 (ZigZag 2).
        XCTAssertEqual(Array(bytes[40...]), [9, 2])
    }

    func testZigZagVarintsUseAtMostNineBytes() throws {
        for value: Int64 in [0, 1, -1, 63, -64, 64, 1 << 40, Int64.max, Int64.min] {
            var bytes: [UInt8] = []
            HdrEncoding.putZigZag(value, into: &bytes)
            XCTAssertLessThanOrEqual(bytes.count, 9)
            var position = 0
            XCTAssertEqual(try HdrEncoding.readZigZag(bytes, &position, end: bytes.count), value)
            XCTAssertEqual(position, bytes.count)
        }
    }

    /// A sparse histogram's encoding is written in place (`encodeSparse`): the generic encoder's bytes, for
    /// adjacent slots, single and long gaps, counts of every varint length, and no slot at all.
    func testSparseEncodingIsTheGenericEncodersBytes() {
        let layout = HdrHistogram().layout
        let shapes: [([Int32], [Int64])] = [
            ([], []), ([0], [1]), ([0, 1, 2], [1, 2, 3]), ([1, 3, 4, 9_000], [5, 1 << 20, Int64.max, 7]),
            ([2, 2_048, 2_049, 20_000], [63, 64, 8_191, 8_192]),
        ]
        for (indices, counts) in shapes {
            let sparse = SparseHistogram(layout: layout, indices: indices, counts: counts,
                                         totalCount: counts.reduce(0, &+), overflowCount: 0, min: 0, max: 0)
            XCTAssertEqual(sparse.encodedV2(), HdrEncoding.encode(sparse), "\(indices)")
        }
        var histogram = HdrHistogram()
        var generator = SeededRandom(splitMix: 5)
        for _ in 0..<2_000 { histogram.record(Int64.random(in: 0...90_000_000, using: &generator)) }
        XCTAssertEqual(histogram.sparse.encodedV2(), histogram.encodedV2())
    }

    func testCorruptEncodingIsRejectedWithAReason() {
        XCTAssertThrowsError(try HdrEncoding.decode([1, 2, 3]))
        var bytes = HdrHistogram().encodedV2()
        bytes[0] = 0
        XCTAssertThrowsError(try HdrEncoding.decode(bytes)) { error in
            XCTAssertTrue("\(error)".contains("cookie"))
        }
    }
}
