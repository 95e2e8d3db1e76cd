@testable import Driver
import Metrics
import XCTest

/// The phone's own life (issue 37) over SIP on the embedded loop, against the twin proxy, under the manual clock:
/// an interruption holds by re-INVITE or ends by BYE, a reset BYEs every dialog, a relaunch re-REGISTERs and answers
/// the lost dialog's in-dialog requests 481, a filtered INVITE is answered 486 or 603 per the app's choice. The
/// history checker finds nothing against the twin.
final class SIPPhoneLifeTests: XCTestCase {
    /// Awake SIP devices, one flow whose callee lives `event` once joined; `then`: the steps after it.
    private func scenario(_ event: String, then: String, device: String = "",
                          joined: Bool = true) -> String {
        var yaml = SIPRig.scenario(devices: 8, rate: "2/s", seconds: 2, sleep: false, mix: "{ life: 100 }")
        yaml = yaml.replacingOccurrences(of: "transport: udp }", with: "transport: udp\(device) }")
        let answer = joined ? """
                  - { role: callee, do: join }
                  - { wait: 200ms }

            """ : ""
        return yaml + """
            flows:
              life:
                roles: [caller, callee]
                \(joined ? "" : "expect: { unanswered: [declined, refused] }")
                steps:
                  - { role: caller, do: start, to: [callee] }
                  - { role: callee, do: await_push }
            \(answer)      - { role: callee, do: \(event) }
            \(then)
            """
    }

    private func run(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Int64] {
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        let c = rig.run(file: file, line: line).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 4, all, file: file, line: line)
        XCTAssertEqual(c[MetricName.callsCompleted], 4, all, file: file, line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe, file: file, line: line)
        return c
    }

    func testAnInterruptionThatHoldsSendsAReInviteHoldingTheMedia() throws {
        let c = try run(scenario("interrupted, then: hold", then: """
                  - { role: caller, do: end }
                  - { role: callee, do: await_end }
            """))
        XCTAssertNil(c[MetricName.callsFailed], "\(c)")
        XCTAssertEqual(c["life.interrupted_hold"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_sent.INVITE"], 2 * 4, "the INVITE and the hold: \(c)")
        XCTAssertEqual(c["action.pause.fulfilled"], 4, "\(c)")
    }

    func testAnInterruptionThatEndsSendsABye() throws {
        let c = try run(scenario("interrupted, then: end", then: """
                  - { role: caller, do: await_end }
            """))
        XCTAssertNil(c[MetricName.callsFailed], "\(c)")
        XCTAssertEqual(c["life.interrupted_end"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_sent.BYE"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_received.BYE"], 4, "\(c)")
    }

    func testAManagerResetByesEveryDialog() throws {
        let c = try run(scenario("manager_reset", then: """
                  - { role: caller, do: await_end }
            """))
        XCTAssertNil(c[MetricName.callsFailed], "\(c)")
        XCTAssertEqual(c["life.manager_reset"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_sent.BYE"], 4, "\(c)")
    }

    func testAFilteredInviteIsAnswered486WhenTheAppSaysSo() throws {
        let c = try run(scenario("filtered", then: """
                  - { role: caller, do: await_end }
            """, device: ", filtered_status: 486", joined: false))
        XCTAssertNil(c[MetricName.callsFailed], "the flow declares the refusal: \(c)")
        XCTAssertEqual(c["life.filtered"], 4, "\(c)")
        XCTAssertEqual(c["sip.responses_sent.486"], 4, "\(c)")
        XCTAssertEqual(c["sip.responses_received.486"], 4, "\(c)")
    }

    func testAFilteredInviteIsAnswered603ByDefault() throws {
        let c = try run(scenario("filtered", then: """
                  - { role: caller, do: await_end }
            """, joined: false))
        XCTAssertEqual(c["sip.responses_sent.603"], 4, "\(c)")
    }

    /// The relaunched device forgot its dialog: it re-REGISTERs, and the caller's BYE for the old call is answered
    /// 481 (Call/Transaction Does Not Exist).
    func testARelaunchReRegistersAndAnswersTheLostDialogsBye481() throws {
        let c = try run(scenario("relaunch", then: """
                  - { role: caller, do: end }
            """))
        XCTAssertEqual(c["life.relaunch"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_sent.REGISTER"].map { $0 >= 8 + 4 }, true, "8 devices, then 4 again: \(c)")
        XCTAssertEqual(c["sip.responses_sent.481"], 4, "\(c)")
        XCTAssertNil(c["sip.requests_sent.BYE"].flatMap { $0 > 4 ? $0 : nil }, "the callee sent no BYE: \(c)")
    }
}

/// From chaos windows over SIP: every event counted, logged with its call, and every call it spoils attributed to
/// it, none to the twin proxy.
extension SIPPhoneLifeTests {
    private func chaos(_ device: String, status: String = "") throws -> [String: Int64] {
        let yaml = SIPRig.scenario(devices: 8, rate: "2/s", seconds: 2, sleep: false)
            .replacingOccurrences(of: "transport: udp }", with: "transport: udp\(status) }") + """
            faults:
              - { name: life, at: 0s, for: 10s, device: \(device) }
            """
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        let c = rig.run().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 4, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        XCTAssertEqual(c[MetricName.callsAttributedToFaults] ?? 0, c[MetricName.callsFailed] ?? 0, all)
        XCTAssertTrue(rig.faultLog.all.allSatisfy { $0.call >= 0 }, "every row names its call")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        return c
    }

    func testAWindowFilteringEveryCallAnswers486AndEveryFailedCallIsTheFilters() throws {
        let c = try chaos("{ filtered: 100% }", status: ", filtered_status: 486")
        XCTAssertEqual(c["faults.device.filtered"], 4, "\(c)")
        XCTAssertEqual(c["sip.responses_sent.486"], 4, "\(c)")
        XCTAssertEqual(c[MetricName.callsAttributed(to: "device.filtered")], 4, "\(c)")
    }

    func testAWindowOfInterruptionsResetsAndRelaunchesIsCountedAndBlamesNothingOnTheProxy() throws {
        for device in ["{ interrupted: 100%, interrupted_action: hold }",
                       "{ interrupted: 100%, interrupted_action: end }",
                       "{ manager_reset: 100% }", "{ relaunch: 100% }"] {
            let c = try chaos(device)
            let kinds = c.filter { $0.key.hasPrefix("faults.device.") }
            XCTAssertEqual(kinds.values.reduce(0, +), 8, "both parts of each of the 4 calls: \(device) \(c)")
        }
    }
}
