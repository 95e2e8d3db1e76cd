import CallModel
@testable import Driver
import Scenario
import XCTest

/// The interpreter's side of issue 32 under the manual clock, without SIP: how a call that nobody answered counts,
/// by what the protocol told it (`refused(status:)`) and what its flow declares (`expect:`).
final class UnansweredOutcomeTests: XCTestCase {
    private func flow(expect: ExpectedOutcome?) -> Flow {
        Flow(name: "call-service", roles: ["caller", "service"], steps: [
            FlowStep(name: "dial", role: "caller", kind: .start(to: ["service"], conversation: "main", video: false)),
            FlowStep(name: "answered", role: "caller", kind: .awaitAnswer(conversation: "main")),
            FlowStep(name: "hangup", role: "caller", kind: .end(conversation: "main", reason: nil)),
        ], outside: ["service": OutsideParty(uri: "sip:echo@127.0.0.1")], expect: expect)
    }

    /// A refusal that came before the proxy's 100 (a stateless 404): the start itself fails with the status.
    private func refusedBeforeTheStart(expect: ExpectedOutcome?) -> FlowHarness {
        let h = FlowHarness(flow: flow(expect: expect))
        h.begin()
        let start = h.holdBack()
        h.apply(h.call.refused(status: 404, now: h.now, &h.context))
        h.apply(h.call.answered(start, ActionAnswer(outcome: .failed(reason: "sip_404")), now: h.now, &h.context))
        h.run()
        XCTAssertTrue(h.completed)
        return h
    }

    func testARefusalBeforeTheStartWasFulfilledFailsTheCallNamedByItsStatus() {
        let h = refusedBeforeTheStart(expect: nil)
        XCTAssertEqual(h.count("calls.failed"), 1)
        XCTAssertEqual(h.count("calls.failed.sip_404"), 1)
        XCTAssertEqual(h.count("calls.completed"), 0)
        XCTAssertEqual(h.outcomes, ["dial=failed"])
    }

    func testARefusalBeforeTheStartWasFulfilledIsTheDeclaredOutcomeWhenTheFlowExpectsIt() {
        let h = refusedBeforeTheStart(expect: ExpectedOutcome(unanswered: [.refused], statuses: [404]))
        XCTAssertEqual(h.count("calls.completed"), 1)
        XCTAssertEqual(h.count("calls.failed"), 0)
        XCTAssertEqual(h.count("calls.unanswered.refused"), 1)
        XCTAssertEqual(h.count("calls.unanswered.sip_404"), 1)
        XCTAssertEqual(h.outcomes, ["dial=failed"], "the flow stopped there: no hang-up")
    }
}
