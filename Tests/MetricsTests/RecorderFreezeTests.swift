import XCTest
@testable import Metrics

/// The checkpoint's snapshot is frozen on the worker's turn (`Recorder.frozen`) and imaged on the writer's thread:
/// the image made later must be the one the recorder made at the freeze, whatever the recorder did in between, in
/// every state a checkpoint meets (few samples, a spilled second, late samples, detached seconds, a merge).
final class RecorderFreezeTests: XCTestCase {
    private let start: UInt64 = 9_000_000_000_000
    private func at(_ seconds: Double) -> UInt64 { start + UInt64(seconds * 1e9) }

    private func assertSame(_ frozen: RecorderImage, _ direct: RecorderImage, _ note: String, line: UInt = #line) {
        XCTAssertEqual(frozen.runStartNanos, direct.runStartNanos, note, line: line)
        XCTAssertEqual(frozen.significantDigits, direct.significantDigits, note, line: line)
        XCTAssertEqual(frozen.histograms, direct.histograms, "totals: \(note)", line: line)
        XCTAssertEqual(frozen.intervals, direct.intervals, "intervals: \(note)", line: line)
        XCTAssertEqual(frozen.counters, direct.counters, "counters: \(note)", line: line)
        XCTAssertEqual(frozen.counterSeries, direct.counterSeries, "series: \(note)", line: line)
        XCTAssertEqual(frozen.gauges, direct.gauges, "gauges: \(note)", line: line)
    }

    /// One second's readings: a metric with a few samples, one that spills into the dense form in busy seconds,
    /// a counter and a gauge.
    private func record(second: Int, busy: Bool, into recorder: inout Recorder) {
        let few = Metric(named: "freeze.few"), many = Metric(named: "freeze.many")
        for k in 0..<(busy ? 300 : 7) {
            let t = at(Double(second) + Double(k) / 1_000)
            recorder.record(many, micros: Int64(50 + (k * 7_919) % 90_000), atNanos: t)
            if k % 3 == 0 { recorder.record(few, micros: Int64(1_000 + k), atNanos: t) }
            recorder.count(.callsStarted, atNanos: t)
        }
        recorder.gauge("freeze.gauge", value: Double(second * 3), atNanos: at(Double(second) + 0.9))
    }

    func testTheFrozenImageIsTheRecordersOwnAtEveryCheckpoint() {
        var recorder = Recorder(runStartNanos: start)
        XCTAssertTrue(recorder.frozen.image.histograms.isEmpty, "an empty recorder freezes empty")
        for second in 0..<8 {
            record(second: second, busy: second % 3 == 1, into: &recorder)
            assertSame(recorder.frozen.image, recorder.image, "second \(second), open")
            if second == 4 { recorder.record(Metric(named: "freeze.few"), micros: 4_000_000_000, atNanos: at(2.5)) }
            if second % 2 == 0 { _ = recorder.detachSeries(before: second - 1) }
            assertSame(recorder.frozen.image, recorder.image, "second \(second), after a late sample or a detach")
        }
        var other = Recorder(runStartNanos: start)
        record(second: 7, busy: true, into: &other)
        recorder.merge(other)  // the kept totals are dropped: the freeze scans the dense ones, as the image does
        assertSame(recorder.frozen.image, recorder.image, "after a merge")
        recorder.seal()
        assertSame(recorder.frozen.image, recorder.image, "sealed")
    }

    /// The point of freezing: what the recorder records after the freeze (into the open second, spilled or not,
    /// a new second, a detach) never reaches the frozen readings, though they share its buffers until then.
    func testRecordingAfterTheFreezeLeavesItUnchanged() {
        var recorder = Recorder(runStartNanos: start)
        for second in 0..<3 { record(second: second, busy: second == 2, into: &recorder) }
        record(second: 3, busy: false, into: &recorder)
        let atFreeze = recorder.image
        let frozen = recorder.frozen
        record(second: 3, busy: true, into: &recorder)  // the open second spills after the freeze
        record(second: 4, busy: false, into: &recorder)
        recorder.gauge("freeze.gauge", value: -1, atNanos: at(3.95))
        _ = recorder.detachSeries(before: 4)
        assertSame(frozen.image, atFreeze, "after recording on")
    }

    func testCounterTotalsAreTheCountersInTheRecordersOrder() {
        var recorder = Recorder(runStartNanos: start)
        recorder.count(.callsStarted, by: 5, atNanos: at(0.1))
        recorder.count(.callsCompleted, by: 2, atNanos: at(1.1))
        recorder.count(.callsStarted, by: 1, atNanos: at(1.2))
        let (names, totals) = recorder.counterTotals
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: zip(names, totals)), recorder.counters)
        XCTAssertEqual(names.count, 2)
    }
}
