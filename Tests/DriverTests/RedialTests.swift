@testable import Driver
import Metrics
import Scenario
import XCTest

/// Redial from Recents: the `redial` step calls the other side of the device's last ended conversation, and is
/// refused when the app keeps its conversations out of Recents or has none to redial.
final class RedialTests: XCTestCase {
    func testTheRedialCallsTheDeviceTheDroppedCallWasWith() {
        let h = FlowHarness(builtin: "redial-after-drop")
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.count(MetricName.redialsStarted), 1)
        let starts = h.sent.filter { $0.request.op == .start }.map(\.request)
        XCTAssertEqual(starts.count, 2)
        XCTAssertEqual(starts[1].to, starts[0].to, "the same callee, from Recents")
        XCTAssertEqual(starts[1].device, starts[0].device)
    }

    func testAnAppOutOfRecentsHasNothingToRedial() {
        var config = FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false)
        config.includesInRecents = false
        let h = FlowHarness(flow: BuiltinFlows.flow(named: "redial-after-drop")!, config: config)
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertTrue(h.call.status.failed)
        XCTAssertEqual(h.count(MetricName.redialRefused("not_in_recents")), 1)
        let redial = h.finished.first { $0.step == "redial" }
        guard case .failed(let reason)? = redial?.action.outcome else { return XCTFail("\(h.outcomes)") }
        XCTAssertEqual(reason, "redial:not_in_recents")
    }

    func testARedialWithNoEndedConversationIsRefused() throws {
        let flow = try ScenarioLoader.parse("""
            name: r
            devices: 2
            load: [ { hold: { rate: 1/s, for: 1s } } ]
            flows:
              eager:
                roles: [caller, callee]
                steps:
                  - { name: redial, role: caller, do: redial }
            mix: { eager: 100 }
            """, file: "r.yaml").get().flow(named: "eager")!
        let h = FlowHarness(flow: flow)
        h.begin()
        h.run()
        XCTAssertEqual(h.count(MetricName.redialRefused("no_recent_conversation")), 1)
    }
}
