import Foundation
import XCTest
@testable import Metrics

/// The recorder keeps its states in arrays indexed by `Metric.key`: keys follow names, and the order a recorder
/// first saw its metrics in (its slots) changes no reading, merge or encoding.
final class RecorderKeyTests: XCTestCase {
    private let start: UInt64 = 7_000_000_000_000
    private func at(_ seconds: Double) -> UInt64 { start + UInt64(seconds * 1e9) }

    func testMetricsOfTheSameNameShareAKeyAndOthersDoNot() {
        let a = Metric(named: "recorder_key_test.same")
        let b = Metric(named: "recorder_key" + "_test.same")
        let c = Metric(named: "recorder_key_test.other")
        XCTAssertEqual(a.key, b.key)
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set([a, b, c]).count, 2)
        XCTAssertNotEqual(a.key, c.key)
        XCTAssertNotEqual(a, c)
        XCTAssertEqual(Metric.callsStarted.key, Metric(named: MetricName.callsStarted).key)
    }

    /// Worker 0 meets the metrics in one order and worker 1 in the reverse, so their slots differ; a third
    /// recorder is decoded from JSON (its slots in the file's order). The merge reads as one recorder fed all.
    func testMergeAcrossRecordersWhoseSlotsWereAssignedInDifferentOrders() throws {
        let names = ["recorder_key_test.a", "recorder_key_test.b", "recorder_key_test.c"]
        var all = Recorder(runStartNanos: start)
        var first = Recorder(runStartNanos: start)
        var second = Recorder(runStartNanos: start)
        var third = Recorder(runStartNanos: start)
        for (i, name) in names.enumerated() {
            let reversed = names[names.count - 1 - i]
            for (k, micros) in [Int64(100), 2_000, 30_000].enumerated() {
                let now = at(Double(i) + Double(k) * 0.4)
                first.record(Metric(named: name), micros: micros, atNanos: now)
                second.record(Metric(named: reversed), micros: micros * 3, atNanos: now)
                third.count(Metric(named: reversed), by: Int64(k + 1), atNanos: now)
                first.count(Metric(named: name), atNanos: now)
                all.record(Metric(named: name), micros: micros, atNanos: now)
                all.record(Metric(named: reversed), micros: micros * 3, atNanos: now)
                all.count(Metric(named: reversed), by: Int64(k + 1), atNanos: now)
                all.count(Metric(named: name), atNanos: now)
            }
        }
        XCTAssertEqual(first.metrics.names, names)
        XCTAssertEqual(second.metrics.names, names.reversed())
        let decoded = try JSONDecoder().decode(Recorder.self, from: JSONEncoder().encode(third))
        var merged = second
        merged.merge(decoded)
        merged.merge(first)
        XCTAssertEqual(merged, all)
        XCTAssertEqual(merged.counters, all.counters)
        XCTAssertEqual(merged.counters["recorder_key_test.c"], 3 + 1 + 2 + 3)
        for name in names {
            XCTAssertEqual(merged.intervalStats(name), all.intervalStats(name), name)
            XCTAssertEqual(merged.counterSeries(name).map(\.value), all.counterSeries(name).map(\.value), name)
            XCTAssertEqual(merged.histograms[name]?.totalCount, 6, name)
        }
    }

    /// A counter adds into its open second and folds it when the second changes: a count for an earlier second
    /// (a late event) and a segment detached while a second is open read as before.
    func testCounterSeriesWithAnOpenSecondReadsAsBefore() {
        var recorder = Recorder(runStartNanos: start)
        let metric = Metric(named: "recorder_key_test.counter")
        recorder.count(metric, atNanos: at(0.1))
        recorder.count(metric, by: 2, atNanos: at(1.5))
        recorder.count(metric, by: 4, atNanos: at(0.9))
        recorder.count(metric, by: 8, atNanos: at(2.2))
        XCTAssertEqual(recorder.counterSeries(metric.name).map(\.second), [0, 1, 2])
        XCTAssertEqual(recorder.counterSeries(metric.name).map(\.value), [5, 2, 8])
        let before = recorder
        var rest = recorder
        let segment = rest.detachSeries(before: 2)
        XCTAssertEqual(segment.counterSeries(metric.name).map(\.value), [5, 2])
        XCTAssertEqual(rest.counterSeries(metric.name).map(\.value), [8])
        XCTAssertEqual(rest.counters[metric.name], 15, "the total stays")
        rest.merge(segment)
        XCTAssertEqual(rest, before)
        recorder.seal()
        XCTAssertEqual(recorder, before, "sealing changes no reading")
    }

    func testReadingANameNoMetricWasMadeOfIsEmpty() {
        let recorder = Recorder(runStartNanos: start)
        XCTAssertTrue(recorder.intervalStats("recorder_key_test.never made \(UUID())").isEmpty)
        XCTAssertTrue(recorder.counterSeries("recorder_key_test.never made \(UUID())").isEmpty)
    }
}
