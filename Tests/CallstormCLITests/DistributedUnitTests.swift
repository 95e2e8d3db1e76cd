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

    func testExpositionHasCumulativeBucketsExactQuantilesAndEscapedLabels() {
        var h = HdrHistogram(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, significantDigits: 3)
        for v in [800, 1_500, 3_000, 40_000, 2_000_000] as [Int64] { h.record(v) }
        var snapshot = LiveSnapshot()
        snapshot.counters = ["calls.started": 7, "errors.http_500": 1]
        snapshot.histograms = ["push_to_report": h.sparse]
        snapshot.activeConversations = 3
        let text = PrometheusExposition(labels: .init(scenario: "a\"b", seed: 9, shard: "1/4"))
            .render(snapshot, elapsedSeconds: 2.5)
        let run = "scenario=\"a\\\"b\",seed=\"9\",shard=\"1/4\""
        XCTAssertTrue(text.contains("callstorm_events_total{\(run),counter=\"calls.started\"} 7\n"), text)
        XCTAssertTrue(text.contains("callstorm_active_conversations{\(run)} 3\n"))
        let base = "callstorm_latency_seconds_bucket{\(run),metric=\"push_to_report\""
        XCTAssertTrue(text.contains("\(base),le=\"0.001\"} 1\n"), text)
        XCTAssertTrue(text.contains("\(base),le=\"0.005\"} 3\n"))
        XCTAssertTrue(text.contains("\(base),le=\"1\"} 4\n"))
        XCTAssertTrue(text.contains("\(base),le=\"+Inf\"} 5\n"))
        XCTAssertTrue(text.contains("callstorm_latency_seconds_count{\(run),metric=\"push_to_report\"} 5\n"))
        let p50 = PrometheusExposition.seconds(h.value(atPercentile: 50))
        XCTAssertTrue(text.contains("quantile_seconds{\(run),metric=\"push_to_report\",quantile=\"0.5\"} \(p50)\n"))
        XCTAssertEqual(PrometheusExposition.seconds(1_500), "0.0015")
        XCTAssertEqual(PrometheusExposition.seconds(2_000_000), "2")
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

    func testClockProbeFindsTheOffsetOfAServerWhoseClockIsFiveSecondsAhead() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let format = UncheckedBox(formatter)
        var config = HTTPServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        let server = HTTPServer(configuration: config, handler: HTTPClosureHandler { _, respond in
            let date = format.value.string(from: Date().addingTimeInterval(5))
            respond(.text(200, "ok", headers: [HTTPHeader(name: "date", value: date)]))
        })
        try server.start()
        defer { server.stop() }
        let offset = try XCTUnwrap(ClockProbe.measure(baseURL: "http://127.0.0.1:\(server.port)", samples: 70))
        XCTAssertEqual(offset.offsetSeconds, 5, accuracy: 0.1)
        XCTAssertLessThan(offset.uncertaintySeconds, 0.1)
        XCTAssertNil(ClockProbe.measure(baseURL: "http://127.0.0.1:1", samples: 2))
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

/// DateFormatter is not Sendable; the test server's one thread is its only user.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
