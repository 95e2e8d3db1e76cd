import Metrics
import XCTest

final class RecorderShiftTests: XCTestCase {
    func testShiftMovesSeriesAndKeepsTotals() {
        var r = Recorder(runStartNanos: 0)
        r.record(Metric(named: "join"), micros: 1_500, atNanos: 500_000_000)
        r.record(Metric(named: "join"), micros: 2_500, atNanos: 2_100_000_000)
        r.count(Metric(named: "calls.started"), atNanos: 1_000_000_000)
        r.gauge("conversations.active", value: 3, atNanos: 2_000_000_000)
        let s = r.shifted(bySeconds: 3)
        XCTAssertEqual(s.histograms, r.histograms)
        XCTAssertEqual(s.counters, r.counters)
        XCTAssertEqual(s.intervalStats("join").map(\.second), [3, 5])
        XCTAssertEqual(s.counterSeries("calls.started").map(\.second), [4])
        XCTAssertEqual(s.gaugeSeries("conversations.active").map(\.second), [5])
        XCTAssertEqual(r.shifted(bySeconds: 0), r)
    }

    func testShiftedShardsMergeOnTheSameWallClockSecond() {
        // Shard A began at Unix second 100, shard B at 102; both counted a call at Unix second 105.
        var a = Recorder(runStartNanos: 0)
        a.count(Metric(named: "calls.started"), atNanos: 5_000_000_000)
        var b = Recorder(runStartNanos: 7)
        b.count(Metric(named: "calls.started"), atNanos: 7 + 3_000_000_000)
        var merged = Recorder(runStartNanos: 0)
        merged.merge(a)
        merged.merge(b.shifted(bySeconds: 2))
        XCTAssertEqual(merged.counterSeries("calls.started").map(\.value), [2])
        XCTAssertEqual(merged.counterSeries("calls.started").map(\.second), [5])
    }
}
