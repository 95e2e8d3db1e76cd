@testable import CallstormCLI
import Driver
import Foundation
import HTTPServer
import Metrics
import XCTest

final class DistributedUnitTests: XCTestCase {
    func testMergedHistoryLinesMoveByTheShardOriginAndTagOpIdsWithTheShard() {
        let invoke: Substring = "{\"t\":1500,\"type\":\"invoke\",\"op\":42,\"device\":\"dev-1\",\"kind\":\"join\"}"
        let (t, line) = MergeCommand.rewrite(invoke, shiftNanos: 2_000_000_000, opTag: 3 << 56)
        XCTAssertEqual(t, 2_000_001_500)
        XCTAssertEqual(line, "{\"t\":2000001500,\"type\":\"invoke\",\"op\":\(UInt64(3) << 56 | 42)," +
                             "\"device\":\"dev-1\",\"kind\":\"join\"}")
        // Shard 0 keeps its op ids; lines without an op (pushes, finals) only move.
        let push: Substring = "{\"t\":7,\"type\":\"push\",\"device\":\"dev-2\",\"event\":\"incoming\"}"
        XCTAssertEqual(MergeCommand.rewrite(push, shiftNanos: 0, opTag: 0).1, String(push))
        XCTAssertEqual(MergeCommand.rewrite(push, shiftNanos: 10, opTag: 1 << 56).1,
                       "{\"t\":17,\"type\":\"push\",\"device\":\"dev-2\",\"event\":\"incoming\"}")
        // Something that is not a history line is kept for the checker to name.
        XCTAssertEqual(MergeCommand.rewrite("garbage", shiftNanos: 10, opTag: 1).1, "garbage")
    }

    func testMergeThresholdFlagParsesEveryProblemAndEvaluatesOnTheUnion() {
        let (ok, errors) = MergeCommand.parseThresholds("join.fulfillment.p99 < 800ms; calls.failed == 0; x.p99 < soon; nothing")
        XCTAssertEqual(ok.map(\.key), ["join.fulfillment.p99", "calls.failed"])
        XCTAssertEqual(ok.first?.limit, 800_000)
        XCTAssertEqual(errors.count, 2, "\(errors)")
        var a = Recorder(runStartNanos: 0)
        var b = Recorder(runStartNanos: 0)
        a.record(Metric(named: "join.fulfillment"), micros: 100_000, atNanos: 1)
        b.record(Metric(named: "join.fulfillment"), micros: 900_000, atNanos: 1)
        b.count(Metric(named: "calls.failed"), atNanos: 1)
        func evaluate(_ r: Recorder) -> [Bool] {
            ok.map { $0.evaluate(histograms: r.histograms, counters: r.counters).passed }
        }
        XCTAssertEqual(evaluate(a), [true, true])
        var union = a
        union.merge(b)
        XCTAssertEqual(evaluate(union), [false, false])
    }

    func testStartAtAndShardFlagsAreCheckedWithUsageErrors() throws {
        XCTAssertNotNil(DistributedOptions.parseInstant("2026-12-02T10:00:00Z"))
        XCTAssertNotNil(DistributedOptions.parseInstant("2026-12-02T10:00:00.250Z"))
        XCTAssertNil(DistributedOptions.parseInstant("tomorrow"))
        XCTAssertThrowsError(try DistributedOptions.parse(Arguments(["--shard", "4/4"],
                                                                    valued: DistributedOptions.valuedFlags, boolean: [])))
        let o = try DistributedOptions.parse(Arguments(["--shard", "1/4", "--metrics-listen", "127.0.0.1:9464"],
                                                       valued: DistributedOptions.valuedFlags, boolean: []))
        XCTAssertEqual(o.shard.description, "1/4")
        XCTAssertEqual(o.metricsListen?.port, 9464)
        XCTAssertTrue(o.isDistributed)
    }
}
