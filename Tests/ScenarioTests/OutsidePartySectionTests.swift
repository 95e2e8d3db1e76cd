import Scenario
import XCTest

/// A flow's `outside:` roles (parties callstorm does not simulate): read in both forms, planned never when they
/// start the call, and refused with their position where a flow would ask callstorm to act for them.
final class OutsidePartySectionTests: XCTestCase {
    private static let answer = """
          answer-outside:
            roles: [caller, callee]
            outside: [caller]
            steps:
              - { name: ring, role: callee, do: await_push }
              - { name: answer, role: callee, do: join }
              - { wait: talk }
              - { name: hangup, role: callee, do: end }
        """

    private func load(_ flows: String, mix: String = "{ answer-outside: 100 }", head: String = "duration: 5s",
                      device: String = "{ signaling: sip }") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: outside
            devices: 10
            \(head)
            target: { sip: { registrar: "127.0.0.1:5070" } }
            device: \(device)
            flows:
            \(flows)
            mix: \(mix)
            """, file: "outside.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testAnOutsideCallerFlowNeedsNoLoadAndPlansNoCall() throws {
        let scenario = try load(Self.answer).get()
        let flow = try XCTUnwrap(scenario.flows["answer-outside"])
        XCTAssertEqual(flow.outside, ["caller": OutsideParty()])
        XCTAssertTrue(flow.startsOutside)
        XCTAssertEqual(flow.deviceRoles, ["callee"])
        XCTAssertTrue(scenario.onlyOutsideCalls)
        XCTAssertEqual(scenario.totalNanos, 5_000_000_000)
        XCTAssertEqual(Array(ArrivalPlan(scenario: scenario)).count, 0)
        XCTAssertTrue(scenario.describe().contains("caller (outside), callee; started by the outside party"))
    }

    func testOutsideCallerFlowsInAMixAreNeverPlanned() throws {
        let scenario = try load(Self.answer, mix: "{ answer-outside: 50, outgoing-1to1: 50 }",
                                head: "load: [{ hold: { rate: 10/s, for: 2s } }]").get()
        XCTAssertTrue(scenario.expectsOutsideCalls)
        XCTAssertFalse(scenario.onlyOutsideCalls)
        let arrivals = Array(ArrivalPlan(scenario: scenario))
        XCTAssertEqual(arrivals.count, 20)
        XCTAssertTrue(arrivals.allSatisfy { $0.flow == 1 }, "only outgoing-1to1 is planned")
    }

    func testAnOutsideCalleeIsCalledByItsURI() throws {
        let scenario = try load("""
              call-echo:
                roles: [caller, echo]
                outside: { echo: { uri: "sip:echo@127.0.0.1:5070" } }
                steps:
                  - { name: dial, role: caller, do: start, to: [echo] }
                  - { name: answered, role: caller, do: await_answer }
                  - { wait: talk }
                  - { name: hangup, role: caller, do: end }
            """, mix: "{ call-echo: 100 }", head: "load: [{ hold: { rate: 1/s, for: 2s } }]").get()
        let flow = try XCTUnwrap(scenario.flows["call-echo"])
        XCTAssertEqual(flow.outside["echo"]?.uri, "sip:echo@127.0.0.1:5070")
        XCTAssertFalse(flow.startsOutside)
        XCTAssertEqual(flow.steps[1].kind, .awaitAnswer(conversation: "main"))
        XCTAssertEqual(flow.steps[1].description, "answered: caller await_answer main")
        XCTAssertEqual(Array(ArrivalPlan(scenario: scenario)).count, 2)
    }

    func testOnlyOutsideCallsNeedADurationAndTakeNoLoad() {
        XCTAssertTrue(messages(load(Self.answer, head: "seed: 1"))
            .contains("outside.yaml:1:1: error: every flow of the mix is started by an outside party: set 'duration'"))
        let text = messages(load(Self.answer, head: "load: [{ hold: { rate: 1/s, for: 2s } }]"))
        XCTAssertTrue(text.contains("outside.yaml:3:7: error: every flow of the mix is started by an outside party, so "
            + "'load' has no call to plan"), text)
    }

    func testStepsForAnOutsideRoleAreRefusedWhereTheyAreWritten() {
        let text = messages(load("""
              answer-outside:
                roles: [caller, callee]
                outside: [caller]
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
                  - { name: hangup, role: hangup, do: end }
            """))
        XCTAssertTrue(text.contains("outside.yaml:11:29: error: role 'caller' is played by an outside party"), text)
        XCTAssertTrue(text.contains("begin with the callee's 'await_push'"), text)
        XCTAssertTrue(text.contains("outside.yaml:12:31: error: 'role: hangup' picks a side"), text)
    }

    func testOutsideMistakesAreLocatedAndCorrected() {
        let text = messages(load("""
              answer-outside:
                roles: [caller, callee, echo]
                outside: { calller: {}, echo: {} }
                steps:
                  - { name: ring, role: callee, do: start, to: [echo] }
            """, device: "{ signaling: sip }"))
        XCTAssertTrue(text.contains("outside.yaml:9:16: error: 'outside' names 'calller', which is not a role"), text)
        XCTAssertTrue(text.contains("did you mean 'caller'"), text)
        XCTAssertTrue(text.contains("outside.yaml:11:53: error: 'echo' is an outside party with no 'uri' to call"), text)
    }

    func testAnOutsideCalleeNeedsSIPDevices() {
        let text = messages(ScenarioLoader.parse("""
            name: outside
            devices: 10
            load: [{ hold: { rate: 1/s, for: 2s } }]
            flows:
              call-echo:
                roles: [caller, echo]
                outside: { echo: { uri: "sip:echo@127.0.0.1:5070" } }
                steps:
                  - { name: dial, role: caller, do: start, to: [echo] }
            mix: { call-echo: 100 }
            """, file: "outside.yaml"))
        XCTAssertTrue(text.contains("outside.yaml:10:6: error: flow 'call-echo' calls the outside party 'echo' by its SIP "
            + "URI, which needs SIP devices"), text)
    }

    func testEveryRoleOutsideIsRefused() {
        let text = messages(load("""
              answer-outside:
                roles: [caller, callee]
                outside: [caller, callee]
                steps:
                  - { wait: talk }
            """))
        XCTAssertTrue(text.contains("every role of flow 'answer-outside' is outside"), text)
    }
}
