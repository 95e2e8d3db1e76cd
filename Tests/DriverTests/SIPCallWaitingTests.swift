@testable import Driver
import Metrics
import XCTest

/// Call waiting on the embedded loop (what SIPOutsideRunTests pins through Kamailio and SIPp): an outside party
/// dials dev-0 three times and dev-1 once, 50 ms apart, while each device talks for half a second. dev-0 takes the
/// second call beside its first, holding the first by re-INVITE (hold-and-accept), and answers the third 486 Busy
/// Here, over its limit of two conversation groups; every call it took completes.
final class SIPCallWaitingTests: XCTestCase {
    private func scenario(sleep: Bool) -> String {
        """
        name: sip-outside-waiting
        seed: 26
        devices: 2
        workers: 1
        duration: 1s
        target: { sip: { registrar: "127.0.0.1:5060" } }
        push: { listen: "127.0.0.1:2197", tls: false, deadline: 2s }
        device: { signaling: sip, sleep: \(sleep), transport: udp, max_conversation_groups: 2 }
        flows:
          answer-outside:
            roles: [caller, callee]
            outside: [caller]
            steps:
              - { name: ring, role: callee, do: await_push }
              - { wait: answer_after }
              - { name: answer, role: callee, do: join }
              - { wait: talk }
              - { name: hangup, role: callee, do: end }
        mix: { answer-outside: 100 }
        behavior:
          answer_after: { uniform: [0ms, 100ms] }
          talk: { uniform: [500ms, 600ms] }
        drain: 10s
        action_timeout: 5s

        """
    }

    private func callWaiting(sleep: Bool) throws -> (SIPRig, [String: Int64], SIPRig.OutsideParty) {
        let rig = try SIPRig(scenario(sleep: sleep), history: true)
        rig.network.latencyNanos = 1_000_000
        rig.registerAll()
        rig.start()
        let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
        for user in ["dev-0", "dev-0", "dev-0", "dev-1"] {
            sipp.call(user)
            rig.loop.run(until: rig.clock.nowNanos() + 50_000_000) { false }
        }
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        let counters = rig.finish().counters
        // In this order (the hold's answer before the second call's confirmation) the checker finds no device
        // active in two unheld conversations (SIPOutsideRunTests' `invariant_violations == 0`).
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        return (rig, counters, sipp)
    }

    private func assertCallWaiting(_ c: [String: Int64], _ sipp: SIPRig.OutsideParty,
                                   file: StaticString = #filePath, line: UInt = #line) {
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], 3, all, file: file, line: line)
        XCTAssertEqual(c[MetricName.callsCompleted], 3, all, file: file, line: line)
        XCTAssertEqual(c["sip.call_waiting.held"], 1, "dev-0 held its first call to take the second: \(all)",
                       file: file, line: line)
        XCTAssertEqual(c[MetricName.callsOutsideRefused("busy")], 1, all, file: file, line: line)
        XCTAssertEqual(c["conversations.refused_over_limit"], 1, all, file: file, line: line)
        XCTAssertEqual(c["conversations.reported"], 4, "each call reported once, its push or its INVITE: \(all)",
                       file: file, line: line)
        XCTAssertEqual(c["sip.responses_sent.486"], 1, all, file: file, line: line)
        XCTAssertEqual(c["sip.requests_received.INVITE"], 4, all, file: file, line: line)
        XCTAssertEqual(c["action.join.fulfilled"], 3, all, file: file, line: line)
        XCTAssertEqual(c["action.end.fulfilled"], 3, all, file: file, line: line)
        XCTAssertNil(c["pushes.unexpected"], "the busy INVITE is an outside call refused: \(all)", file: file,
                     line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        // The outside party's side, as SIPp counts it: three calls answered and ended by the device, one refused.
        XCTAssertEqual(sipp.counters.responsesReceived[486], 1, file: file, line: line)
        XCTAssertEqual(sipp.counters.requestsReceived["BYE"], 3, file: file, line: line)
    }

    func testAnAwakeDeviceHoldsItsCallToTakeAWaitingCallAndRefusesAThirdBusyHere() throws {
        let (rig, c, sipp) = try callWaiting(sleep: false)
        assertCallWaiting(c, sipp)
        XCTAssertNil(rig.finish().histograms[MetricName.pushToRegister], "no device slept")
    }

    /// On the wake-up path the waiting calls' pushes reach dev-0 awake in its first call: it reports them without
    /// waking again, and their INVITEs decide as above.
    func testASleepingDeviceInACallReportsTheWaitingCallsPushAndTakesOrRefusesItAsTheModelSays() throws {
        let (rig, c, sipp) = try callWaiting(sleep: true)
        assertCallWaiting(c, sipp)
        XCTAssertEqual(rig.finish().histograms[MetricName.pushToRegister]?.totalCount, 2,
                       "dev-0 and dev-1 woke for their first calls only")
    }
}
