@testable import Driver
import Faults
import Metrics
import Scenario
import XCTest

/// The phone's own life (issue 37) on the embedded loop under the manual clock, against the reference target in
/// memory (HTTP devices): each event as a flow step, what the device tells its server, and the call going on (or
/// ending) as the event left it; from a chaos window, each event counted, logged and attributed.
final class PhoneLifeTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    /// A two-party call whose callee lives `event` (`then`: the flow's steps after it).
    static func scenario(_ event: String, then: String, device: String = "{}", faults: String = "",
                         mix: String = "{ life: 100 }") -> String {
        """
        name: phone-life
        seed: 37
        devices: 8
        device: \(device)
        mix: \(mix)
        load:
          - hold: { rate: 1/s, for: 3s }
        behavior: { answer_after: { constant: 100ms }, talk: { constant: 1s } }
        flows:
          life:
            roles: [caller, callee]
            steps:
              - { role: caller, do: start, to: [callee] }
              - { role: callee, do: await_push }
              - { role: callee, do: join }
              - { wait: 200ms }
              - { role: callee, do: \(event) }
        \(then)
        """ + faults
    }

    private func run(_ yaml: String) throws -> [String: Int64] {
        let scenario = try ScenarioLoader.parse(yaml, file: "phone-life.yaml").get()
        let rig = try EmbeddedWorkerTests.Rig(scenario)
        return rig.run(limit: 120 * second).counters
    }

    private func assertCompleted(_ c: [String: Int64], file: StaticString = #filePath, line: UInt = #line) {
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 3, all, file: file, line: line)
        XCTAssertEqual(c[MetricName.callsCompleted], 3, all, file: file, line: line)
        XCTAssertNil(c[MetricName.callsFailed], all, file: file, line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
    }

    func testAnInterruptionThatHoldsSendsAHoldAndTheCallGoesOnToItsEnd() throws {
        let c = try run(Self.scenario("interrupted, then: hold", then: """
                  - { role: caller, do: end }
                  - { role: callee, do: await_end }
            """))
        assertCompleted(c)
        XCTAssertEqual(c["life.interrupted"], 3, "\(c)")
        XCTAssertEqual(c["life.interrupted_hold"], 3, "\(c)")
        XCTAssertEqual(c["action.pause.fulfilled"], 3, "the hold went to the server unasked: \(c)")
        XCTAssertEqual(c[MetricName.lifeActionsFulfilled], 3, "\(c)")
    }

    func testAnInterruptionThatEndsTellsTheServerAndTheCallerSeesTheEnd() throws {
        let c = try run(Self.scenario("interrupted, then: end", then: """
                  - { role: caller, do: await_end }
            """))
        assertCompleted(c)
        XCTAssertEqual(c["life.interrupted_end"], 3, "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "\(c)")
    }

    func testAManagerResetEndsEveryConversationOfTheDeviceAtTheServer() throws {
        let c = try run(Self.scenario("manager_reset", then: """
                  - { role: caller, do: await_end }
            """))
        assertCompleted(c)
        XCTAssertEqual(c["life.manager_reset"], 3, "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "\(c)")
    }

    func testARelaunchRegistersAgainAndEndsTheCallsTheServerStillHolds() throws {
        let c = try run(Self.scenario("relaunch", then: """
                  - { role: caller, do: await_end }
            """))
        assertCompleted(c)
        XCTAssertEqual(c["life.relaunch"], 3, "\(c)")
        XCTAssertEqual(c[MetricName.lifeRelaunchRegistered], 3, "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "\(c)")
    }

    func testARelaunchThatRejoinsKeepsTheCallAndSendsNoEnd() throws {
        let c = try run(Self.scenario("relaunch", then: """
                  - { role: caller, do: end }
                  - { role: callee, do: await_end }
            """, device: "{ relaunch: rejoin }"))
        assertCompleted(c)
        XCTAssertEqual(c[MetricName.lifeRelaunchRegistered], 3, "\(c)")
        XCTAssertEqual(c[MetricName.lifeSkipped], 3, "nothing to end: \(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "only the caller's own end: \(c)")
    }

    func testAFilteredCallIsReportedEndedAtOnceAndTheCallerIsTold() throws {
        let yaml = Self.scenario("filtered", then: "").replacingOccurrences(of: """
                  - { role: callee, do: join }
                  - { wait: 200ms }

            """, with: "") + """
                  - { role: caller, do: await_end }

            """
        let c = try run(yaml)
        assertCompleted(c)
        XCTAssertEqual(c["life.filtered"], 3, "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "the decline: \(c)")
    }

    /// From a chaos window: every connected callee is interrupted (ended); each event is a faults.csv row naming its
    /// call, counted, and the calls it spoils are attributed to it, none to the target.
    func testAChaosWindowInterruptsEveryCallAndItsEffectIsNeverBlamedOnTheServer() throws {
        let faults = """

            faults:
              - { name: another-call, at: 0s, for: 10s, device: { interrupted: 100%, interrupted_action: end } }
            """
        let c = try run(Self.scenario("interrupted", then: "", mix: "{ incoming-1to1: 100 }") + faults)
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 3, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 3, all)
        // Both parts of each call are drawn: whichever acted first ended it; the other found nothing.
        XCTAssertEqual(c["faults.device.interrupted_end"], 6, all)
        XCTAssertEqual(c["life.interrupted_end"], 6, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
    }
}

/// The reference target's `interrupted-stays-joined` bug: the interrupted end is answered 200 and the server still
/// shows the device joined; the device takes it as said and the server's answer is what the checker judges.
extension PhoneLifeTests {
    func testTheInterruptedStaysJoinedBugAnswersTheEndButKeepsTheDeviceJoined() throws {
        let yaml = Self.scenario("interrupted, then: end", then: """
                  - { role: caller, do: end }
            """)
        let scenario = try ScenarioLoader.parse(yaml, file: "phone-life.yaml").get()
        let rig = try EmbeddedWorkerTests.Rig(scenario, bugs: [.interruptedStaysJoined])
        let c = rig.run(limit: 120 * second).counters
        XCTAssertEqual(c["life.interrupted_end"], 3, "\(c)")
        XCTAssertEqual(c[MetricName.lifeActionsFulfilled], 3, "the server said yes: \(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 6, "the caller's end still had a call to end: \(c)")
    }
}

/// `device.relaunch: end_on_event`: a server that offers no list of a device's calls; the relaunched device ends
/// the call it lost when its next push finds it still alive.
extension PhoneLifeTests {
    func testARelaunchWithNoListEndsTheLostCallOnItsNextEvent() throws {
        let c = try run(Self.scenario("relaunch", then: """
                  - { wait: 200ms }
                  - { role: caller, do: pause }
                  - { role: caller, do: await_end }
            """, device: "{ relaunch: end_on_event }"))
        XCTAssertEqual(c[MetricName.callsCompleted], 3, "\(c)")
        XCTAssertEqual(c[MetricName.lifeRelaunchRegistered], 3, "\(c)")
        XCTAssertNil(c[MetricName.lifeSkipped], "\(c)")
        XCTAssertEqual(c["action.pause.fulfilled"], 3, "\(c)")
        XCTAssertEqual(c["step_outcome.end@life/life.relaunch.fulfilled"], 3, "ended on the hold's push: \(c)")
    }
}
