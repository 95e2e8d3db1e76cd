@testable import Metrics
import XCTest

/// A second in progress kept as values until it spills (`OpenInterval`) gives exactly the slots a dense histogram
/// gives, below, at and above the spill point, and after seals.
final class OpenIntervalTests: XCTestCase {
    private let template = HdrHistogram(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000,
                                        significantDigits: 3)

    /// A seeded spread of latencies with repeats, zeros, negatives and values past the trackable range.
    private func samples(_ count: Int, seed: UInt64) -> [Int64] {
        var state = seed
        return (0..<count).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            switch i % 9 {
            case 0: return -5
            case 1: return 0
            case 2: return 4_000_000_000
            case 3: return 1_500
            default: return Int64(state >> 40) % 250_000
            }
        }
    }

    func testEverySizeAroundTheSpillPointSealsToTheDenseHistogramsSlots() {
        for count in [0, 1, 2, 9, 63, 64, 65, 66, 200, 1_000] {
            var open = OpenInterval(template: template)
            var dense = template
            for value in samples(count, seed: UInt64(count) + 1) {
                open.record(value)
                dense.record(value)
            }
            XCTAssertEqual(open.isEmpty, count == 0, "\(count)")
            XCTAssertEqual(open.sparse, dense.sparse, "\(count) samples, before the seal")
            XCTAssertEqual(open.takeSparse(), dense.takeSparse(), "\(count) samples")
            XCTAssertTrue(open.isEmpty, "\(count)")
        }
    }

    /// The slots of raw samples are sorted by insertion up to the spill point and by the standard sort beyond:
    /// both give the dense histogram's slots.
    func testSparseFromSamplesIsTheDenseSlotsOnBothSidesOfTheInsertionSort() {
        for count in [1, 2, 3, 64, 65, 300] {
            var dense = template
            let values = samples(count, seed: UInt64(count) * 7 + 3)
            for value in values { dense.record(value) }
            XCTAssertEqual(SparseHistogram(layout: template.layout, samples: values), dense.sparse, "\(count)")
        }
    }

    func testAnIntervalReusedAfterASpilledSecondStartsEmptyAndKeepsValuesAgain() {
        var open = OpenInterval(template: template)
        for value in samples(300, seed: 7) { open.record(value) }
        _ = open.takeSparse()
        var dense = template
        for value in samples(5, seed: 9) {
            open.record(value)
            dense.record(value)
        }
        XCTAssertEqual(open.takeSparse(), dense.sparse)
        XCTAssertEqual(open.sparse.totalCount, 0)
    }

    func testARecordersIntervalsAreTheSameWhateverTheSecondsSize() {
        var recorder = Recorder(runStartNanos: 0)
        var expected: [Int: HdrHistogram] = [:]
        for (second, count) in [(0, 3), (1, 64), (2, 65), (3, 500)] {
            for value in samples(count, seed: UInt64(second) + 11) {
                recorder.record(.pushToReport, micros: value, atNanos: UInt64(second) * 1_000_000_000 + 1)
                expected[second, default: template].record(value)
            }
        }
        let intervals = recorder.intervals[MetricName.pushToReport] ?? [:]
        XCTAssertEqual(intervals.keys.sorted(), [0, 1, 2, 3])
        for (second, dense) in expected { XCTAssertEqual(intervals[second], dense.sparse, "second \(second)") }
        recorder.seal()
        XCTAssertEqual(recorder.intervals[MetricName.pushToReport], intervals)
    }

    /// A spill makes counts of its own instead of writing into the template's (shared, copy-on-write): the
    /// template stays empty, and seconds that spill one after another each seal to their own dense slots.
    func testSpillsLeaveTheTemplateEmptyAndEachSecondSealsToItsOwnSlots() {
        var open = OpenInterval(template: template)
        for second in 0..<3 {
            var dense = template
            for value in samples(150 + second, seed: UInt64(second) + 11) {
                open.record(value)
                dense.record(value)
            }
            XCTAssertEqual(open.takeSparse(), dense.takeSparse(), "second \(second)")
            XCTAssertTrue(open.isEmpty)
        }
        XCTAssertTrue(template.isEmpty)
        XCTAssertTrue(template.counts.allSatisfy { $0 == 0 })
    }
}
