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
        XCTAssertEqual(MetricName.step("incoming-1to1/answer"), "step.incoming-1to1/answer")
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
}
