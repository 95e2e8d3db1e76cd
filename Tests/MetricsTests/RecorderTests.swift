import Determinism
import Foundation
import XCTest
@testable import Metrics

final class RecorderTests: XCTestCase {
    private let start: UInt64 = 5_000_000_000_000
    private func at(_ seconds: Double) -> UInt64 { start + UInt64(seconds * 1e9) }

    func testSamplesAreSealedIntoTheSecondTheyFellIn() {
        var recorder = Recorder(runStartNanos: start)
        recorder.record(Metric(named: "push_to_report"), micros: 1_000, atNanos: at(0.1))
        recorder.record(Metric(named: "push_to_report"), micros: 3_000, atNanos: at(0.9))
        recorder.record(Metric(named: "push_to_report"), micros: 50_000, atNanos: at(2.5))
        recorder.record(Metric(named: "push_to_report"), micros: 7, atNanos: start - 1_000)  // before start: second 0
        XCTAssertEqual(recorder.intervalStats("push_to_report").map(\.second), [0, 2])
        recorder.seal()
        let stats = recorder.intervalStats("push_to_report")
        XCTAssertEqual(stats.map(\.second), [0, 2])
        XCTAssertEqual(stats.map(\.count), [3, 1])
        XCTAssertEqual(stats[0].max, 3_000)
        XCTAssertEqual(stats[0].p50, 1_000)
        XCTAssertEqual(stats[1].p99, 50_000)
        XCTAssertEqual(recorder.histograms["push_to_report"]?.totalCount, 4)
        XCTAssertEqual(recorder.intervals["push_to_report"]?.count, 2)
        XCTAssertEqual(recorder.intervalStats("unknown"), [])
    }

    func testLateSampleForAnEarlierSecondIsFoldedIntoThatSecond() {
        var recorder = Recorder(runStartNanos: start)
        recorder.record(Metric(named: "m"), micros: 10, atNanos: at(1.2))
        recorder.record(Metric(named: "m"), micros: 20, atNanos: at(2.2))
        recorder.record(Metric(named: "m"), micros: 30, atNanos: at(1.9))
        recorder.seal()
        XCTAssertEqual(recorder.intervalStats("m").map(\.count), [2, 1])
        XCTAssertEqual(recorder.intervalStats("m")[0].max, 30)
    }

    func testCountersKeepTotalsAndPerSecondSeries() {
        var recorder = Recorder(runStartNanos: start)
        recorder.count(Metric(named: "calls.started"), atNanos: at(0.5))
        recorder.count(Metric(named: "calls.started"), by: 4, atNanos: at(0.7))
        recorder.count(Metric(named: "calls.started"), atNanos: at(3.0))
        recorder.count(Metric(named: "errors.timeout"), by: 2, atNanos: at(1.0))
        XCTAssertEqual(recorder.counters, ["calls.started": 6, "errors.timeout": 2])
        let series = recorder.counterSeries("calls.started")
        XCTAssertEqual(series.map(\.second), [0, 3])
        XCTAssertEqual(series.map(\.value), [5, 1])
        XCTAssertTrue(recorder.counterSeries("nothing").isEmpty)
        XCTAssertEqual(recorder.counterNames, ["calls.started", "errors.timeout"])
    }

    func testGaugeKeepsLastValuePerSecondAndMergeSumsShares() {
        var first = Recorder(runStartNanos: start)
        first.gauge("active", value: 3, atNanos: at(0.1))
        first.gauge("active", value: 5, atNanos: at(0.8))
        first.gauge("active", value: 6, atNanos: at(1.1))
        first.gauge("active", value: .nan, atNanos: at(1.5))
        var second = Recorder(runStartNanos: start)
        second.gauge("active", value: 2, atNanos: at(0.5))
        XCTAssertEqual(first.gaugeSeries("active").map(\.value), [5, 6])
        first.merge(second)
        XCTAssertEqual(first.gaugeSeries("active").map(\.second), [0, 1])
        XCTAssertEqual(first.gaugeSeries("active").map(\.value), [7, 6])
    }

    func testMergeOfTwoRecordersEqualsOneRecorderFedEverything() {
        var rng = SeededRandom(splitMix: 11)
        var all = Recorder(runStartNanos: start)
        var workers = [Recorder(runStartNanos: start), Recorder(runStartNanos: start)]
        let metrics = ["push_to_report", "join.fulfillment", "dial_to_ring"]
        var clock = [at(0), at(0)]
        for index in 0..<6_000 {
            let worker = index % 2
            clock[worker] += UInt64.random(in: 0...3_000_000, using: &rng)
            let now = clock[worker]
            let metric = metrics[Int.random(in: 0..<metrics.count, using: &rng)]
            let micros = Int64.random(in: 0...5_000_000, using: &rng)
            all.record(Metric(named: metric), micros: micros, atNanos: now)
            workers[worker].record(Metric(named: metric), micros: micros, atNanos: now)
            if index % 7 == 0 {
                all.count(Metric(named: "calls.started"), atNanos: now)
                workers[worker].count(Metric(named: "calls.started"), atNanos: now)
            }
        }
        var merged = workers[0]
        merged.merge(workers[1])
        XCTAssertEqual(merged, all)
        merged.seal()
        all.seal()
        XCTAssertEqual(merged, all)
        XCTAssertEqual(merged.intervalStats("push_to_report"), all.intervalStats("push_to_report"))
        XCTAssertGreaterThan(all.intervalStats("push_to_report").count, 3)
    }

    func testCodableRoundTripPreservesReadings() throws {
        var recorder = Recorder(runStartNanos: start)
        recorder.record(Metric(named: "push_to_report"), micros: 1_234, atNanos: at(0.2))
        recorder.record(Metric(named: "push_to_report"), micros: 9_999, atNanos: at(1.2))
        recorder.count(Metric(named: "calls.completed"), by: 3, atNanos: at(1.5))
        recorder.gauge("rss_bytes", value: 1.5e8, atNanos: at(1.5))
        let data = try JSONEncoder().encode(recorder)
        let decoded = try JSONDecoder().decode(Recorder.self, from: data)
        XCTAssertEqual(decoded, recorder)
        XCTAssertEqual(decoded.intervalStats("push_to_report").map(\.count), [1, 1])
    }
}

final class RecorderSegmentTests: XCTestCase {
    private func busyRecorder() -> Recorder {
        var recorder = Recorder(runStartNanos: 1_000)
        for second in 0..<30 {
            let at = 1_000 + UInt64(second) * 1_000_000_000
            for i in 0..<4 { recorder.record(Metric(named: "push_to_report"), micros: Int64(50 * second + i), atNanos: at) }
            recorder.count(Metric(named: "calls.started"), by: 2, atNanos: at)
            recorder.gauge("harness.rss_mib", value: Double(100 + second), atNanos: at)
        }
        return recorder
    }

    func testDetachedSeriesMergedBackGiveTheSameRecorder() {
        let original = busyRecorder()
        var kept = original
        let segment = kept.detachSeries(before: 20)
        XCTAssertEqual(kept.histograms, original.histograms, "totals stay")
        XCTAssertEqual(kept.counters, original.counters)
        XCTAssertEqual(kept.intervalStats("push_to_report").map(\.second), Array(20..<30))
        XCTAssertEqual(segment.intervalStats("push_to_report").map(\.second), Array(0..<20))
        XCTAssertEqual(segment.counters["calls.started"], 0, "a segment carries series, not totals")
        XCTAssertEqual(segment.counterSeries("calls.started").count, 20)
        XCTAssertEqual(segment.gaugeSeries("harness.rss_mib").last?.second, 19)
        kept.merge(segment)
        XCTAssertEqual(kept, original)
    }

    func testASampleLateForADetachedSecondIsAddedNotLost() {
        var recorder = busyRecorder()
        var reference = recorder
        var segments = [recorder.detachSeries(before: 25)]
        recorder.record(Metric(named: "push_to_report"), micros: 7, atNanos: 1_000 + 3 * 1_000_000_000)
        reference.record(Metric(named: "push_to_report"), micros: 7, atNanos: 1_000 + 3 * 1_000_000_000)
        segments.append(recorder.detachSeries(before: 25))
        for segment in segments { recorder.merge(segment) }
        XCTAssertEqual(recorder, reference)
        XCTAssertEqual(recorder.intervalStats("push_to_report").first { $0.second == 3 }?.count, 5)
    }

    func testTheImageDecodesToTheSameRecorder() throws {
        let recorder = busyRecorder()
        let data = try JSONEncoder().encode(recorder.image)
        XCTAssertEqual(try JSONDecoder().decode(Recorder.self, from: data), recorder)
    }
}
