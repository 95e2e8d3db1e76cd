import Metrics
import XCTest

/// Metric names are what users write in `slo:` and read in counters.csv: the builders must spell them as the
/// reports and thresholds always have.
final class MetricNameTests: XCTestCase {
    func testBuildersSpellTheNamesUsersKnow() {
        XCTAssertEqual(MetricName.fulfillment("join"), "join.fulfillment")
        XCTAssertEqual(MetricName.fulfillmentFromPlanned("join"), "join.fulfillment_from_planned")
        XCTAssertEqual(MetricName.fulfillment("join", step: "incoming-1to1/answer"),
                       "join.fulfillment@incoming-1to1/answer")
        XCTAssertEqual(MetricName.stepOutcome("join", step: "incoming-1to1/answer", label: "timed_out"),
                       "step_outcome.join@incoming-1to1/answer.timed_out")
        XCTAssertEqual(MetricName.action("merge", .timedOut), "action.merge.timed_out")
        XCTAssertEqual(MetricName.pushesReceived("voip"), "pushes.received.voip")
        XCTAssertEqual(MetricName.fault("push.dropped"), "faults.push.dropped")
        XCTAssertEqual(MetricName.fault("push.dropped", pushType: "voip"), "faults.push.dropped.voip")
        XCTAssertEqual(MetricName.networkToxicConnections("latency"), "faults.network.latency.connections")
        XCTAssertEqual(MetricName.invariantViolations("merge_lost_update"), "invariant_violations.merge_lost_update")
    }

    func testTheBooksReadTheCatalogsNames() {
        let books = Books(counters: [MetricName.action("join", .started): 2, MetricName.action("join", .fulfilled): 2,
                                     MetricName.callsStarted: 1, MetricName.callsCompleted: 1])
        XCTAssertEqual(books.actions.map(\.kind), ["join"])
        XCTAssertTrue(books.actions[0].balanced)
        XCTAssertTrue(books.calls.balanced)
        XCTAssertEqual(Books.Counter.delivered, MetricName.pushesDelivered)
    }

    /// The typed names the recorder takes spell exactly the strings readers key on, so typing them changed no row
    /// of counters.csv or summary.json.
    func testTypedNamesSpellTheStringsReadersKnow() {
        XCTAssertEqual(Metric.callsStarted.name, MetricName.callsStarted)
        XCTAssertEqual(Metric.pushesUndeliveredAtStop.name, Books.Counter.undelivered)
        XCTAssertEqual(Metric.action("join", .inFlightAtStop).name, "action.join.in_flight_at_stop")
        XCTAssertEqual(Metric.action("end", label: "already_ended").name, "action.end.already_ended")
        XCTAssertEqual(Metric.actionFailed("join", reason: "http_503").name, "action.join.failed.http_503")
        XCTAssertEqual(Metric.httpStatus(503).name, "errors.http_503")
        XCTAssertEqual(Metric.badResponse.name, "errors.bad_response")
        XCTAssertEqual(Metric.observed(.socketEvents, "stale").name, "socket.events.stale")
        XCTAssertEqual(Metric.observed(.pushes, "out_of_order").name, "pushes.out_of_order")
        XCTAssertEqual(Metric.scoped("fault.slow", .pushToReport).name, "fault.slow.push_to_report")
        XCTAssertEqual(Metric.flow("group-merge", "failed_calls").name, "flow.group-merge.failed_calls")
        XCTAssertEqual(Metric.raceRuns("race/clash").name, "race.race/clash.runs")
        XCTAssertEqual(Metric.fulfillmentFromPlanned("join", step: "f/answer").name,
                       "join.fulfillment_from_planned@f/answer")
        XCTAssertEqual(Metric.stepOutcome("join", step: "f/answer", label: "failed").name,
                       "step_outcome.join@f/answer.failed")
        XCTAssertEqual(Metric.socketConnectFailed("tls").name, "socket.connect_failed.tls")
        XCTAssertEqual(Metric.socketActionsQueued.name, "socket.actions.queued")
        XCTAssertEqual(Metric.apiCapture("conversation.id", matched: false).name, "api.capture.conversation.id.missed")
    }

    /// The report's per-step outcome table reads back what the driver counted, even for a step whose name holds
    /// a dot or an outcome's word; `action.` counters are the books' and stay out of it.
    func testStepOutcomesAreReadBackFromTheirCounters() {
        let counters: [String: Int64] = [
            MetricName.stepOutcome("join", step: "f/answer", label: "fulfilled"): 4,
            MetricName.stepOutcome("join", step: "f/answer", label: "timed_out"): 1,
            MetricName.stepOutcome("end", step: "f/v1.failed", label: "failed"): 2,
            MetricName.action("join", .fulfilled): 9,
            MetricName.stepOutcome("join", step: "f/answer", label: "unknown"): 2,
            "step_outcome.join@f/answer.bogus": 3,
        ]
        XCTAssertEqual(MetricName.stepOutcomes(in: counters), [
            "join@f/answer": ["fulfilled": 4, "timed_out": 1, "unknown": 2],
            "end@f/v1.failed": ["failed": 2],
        ])
    }

    func testARecorderCountsUnderTheTypedNamesString() {
        var recorder = Recorder(runStartNanos: 0)
        recorder.count(.callsStarted, by: 2, atNanos: 1)
        recorder.record(.pushToReport, micros: 7, atNanos: 1)
        XCTAssertEqual(recorder.counters[MetricName.callsStarted], 2)
        XCTAssertEqual(recorder.histograms[MetricName.pushToReport]?.totalCount, 1)
    }
}
