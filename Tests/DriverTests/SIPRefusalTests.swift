@testable import Driver
import Metrics
import XCTest

/// Issue 32 on the embedded loop: devices call an outside service (Scenarios/sip/outside-callee.yaml's shape) that
/// refuses, rings forever or is not there, or hang up while it rings. A call completes only if it was answered or
/// ended unanswered the way its flow's `expect:` declares; a refusal fails it named by its status, never counted as
/// the other side's end; every end has its dialog line; the books balance and the checker finds nothing broken.
final class SIPRefusalTests: XCTestCase {
    private static let calls: Int64 = 3

    private static func scenario(expect: String = "", steps: String? = nil, actionTimeout: String = "10s") -> String {
        let answered = """
                  - { name: dial, role: caller, do: start, to: [service] }
                  - { name: answered, role: caller, do: await_answer }
                  - { wait: talk }
                  - { name: hangup, role: caller, do: end }
            """
        return """
            name: sip-refusals
            seed: 32
            devices: 3
            workers: 1
            target: { sip: { registrar: "127.0.0.1:5060" } }
            push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
            device: { signaling: sip, transport: udp }
            flows:
              call-service:
                roles: [caller, service]
                outside: { service: { uri: "sip:echo@127.0.0.1" } }
            \(expect.isEmpty ? "" : "    expect: \(expect)\n")    steps:
            \(steps ?? answered)
            load: [ { hold: { rate: 1/s, for: 3s } } ]
            mix: { call-service: 100 }
            behavior:
              talk: { constant: 300ms }
            drain: 60s
            action_timeout: \(actionTimeout)

            """
    }

    /// Runs `yaml` against an outside party `echo` set up by `party`, checks the books and the history, and
    /// returns the counters and each call's dialog lines at its caller (`state[ reason]`, by Call-ID).
    private func run(_ yaml: String, party: (SIPRig) -> SIPRig.OutsideParty,
                     file: StaticString = #filePath, line: UInt = #line)
        throws -> (counters: [String: Int64], dialogs: [String: [String]], completes: [String])
    {
        let rig = try SIPRig(yaml, history: true)
        let outside = party(rig)
        let c = rig.run(file: file, line: line).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], Self.calls, all, file: file, line: line)
        XCTAssertEqual(outside.counters.requestsReceived["INVITE"], Int(Self.calls), file: file, line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        XCTAssertNil(c["events.ended.remoteEnded"], "an end before any answer is not the other side's: \(all)",
                     file: file, line: line)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe, file: file, line: line)
        var dialogs: [String: [String]] = [:]
        for line in check.lines where line.contains("\"type\":\"dialog\"") {
            let words = [Self.field(line, "state"), Self.field(line, "reason")].compactMap { $0 }
            dialogs[Self.field(line, "conversation") ?? "?", default: []].append(words.joined(separator: " "))
        }
        let completes = check.lines.filter { $0.contains("\"type\":\"complete\"") }
            .map { [Self.field($0, "outcome"), Self.field($0, "reason")].compactMap { $0 }.joined(separator: " ") }
        return (c, dialogs, completes)
    }

    private static func field(_ line: String, _ name: String) -> String? {
        guard let start = line.range(of: "\"\(name)\":\"")?.upperBound,
              let end = line[start...].firstIndex(of: "\"") else { return nil }
        return String(line[start..<end])
    }

    // MARK: - Refusals

    func testABusyServiceRefusing486BeforeRingingFailsEveryCallNamedByItsStatusWithATerminatedLine() throws {
        let (c, dialogs, completes) = try run(Self.scenario()) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true, refuses: 486, rings: false)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c[MetricName.callsFailed], Self.calls, all)
        XCTAssertEqual(c["calls.failed.sip_486"], Self.calls, all)
        XCTAssertEqual(c["events.ended.failed"], Self.calls, "a refusal is LCK's failed: \(all)")
        XCTAssertEqual(c["action.start.fulfilled"], Self.calls, "start is fulfilled at the proxy's 100: \(all)")
        XCTAssertNil(c["action.end.started"], "await_answer failed the call: no hang-up follows: \(all)")
        XCTAssertEqual(Array(dialogs.values), Array(repeating: ["terminated failed_486"], count: Int(Self.calls)),
                       "nothing rang, yet each end has its line: \(dialogs)")
        XCTAssertEqual(completes, Array(repeating: "ok", count: Int(Self.calls)), "the starts, fulfilled at the 100")
    }

    func testABusyServiceRefusing486AfterRingingFailsEveryCallAfterItsEarlyDialog() throws {
        let (c, dialogs, _) = try run(Self.scenario()) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true, refuses: 486)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c["calls.failed.sip_486"], Self.calls, all)
        XCTAssertEqual(c["sip.responses_received.180"], Self.calls, all)
        XCTAssertEqual(Array(dialogs.values), Array(repeating: ["early", "terminated failed_486"],
                                                    count: Int(Self.calls)), "\(dialogs)")
    }

    func testAServiceThatNeverAnswersGetsTheProxys408BeforeRingingAndEveryCallFailsSip408() throws {
        let (c, dialogs, _) = try run(Self.scenario()) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true, rings: false)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c["calls.failed.sip_408"], Self.calls, "the proxy's fr_timer: \(all)")
        XCTAssertEqual(c["events.ended.unanswered"], Self.calls, "a 408 is LCK's unanswered: \(all)")
        XCTAssertEqual(Array(dialogs.values), Array(repeating: ["terminated failed_408"], count: Int(Self.calls)),
                       "\(dialogs)")
    }

    func testAServiceThatRingsForeverGetsTheProxys408AfterRingingAndEveryCallFailsSip408() throws {
        let (c, dialogs, _) = try run(Self.scenario(actionTimeout: "40s")) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c["calls.failed.sip_408"], Self.calls, "the proxy's fr_inv_timer: \(all)")
        XCTAssertEqual(Array(dialogs.values), Array(repeating: ["early", "terminated failed_408"],
                                                    count: Int(Self.calls)), "\(dialogs)")
    }

    func testARefusalTheFlowDeclaresIsItsOutcomeNotAFailureAndTheFlowStopsThere() throws {
        let (c, _, _) = try run(Self.scenario(expect: "{ unanswered: [refused], status: [486] }")) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true, refuses: 486)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], Self.calls, all)
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["calls.unanswered.refused"], Self.calls, all)
        XCTAssertEqual(c["calls.unanswered.sip_486"], Self.calls, all)
        XCTAssertNil(c["action.end.started"], "the rest of the flow is for an answered call: \(all)")
    }

    func testARefusalWithAStatusTheFlowDoesNotDeclareStillFailsTheCall() throws {
        let (c, _, _) = try run(Self.scenario(expect: "{ unanswered: [refused], status: [486] }")) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true, refuses: 480)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c["calls.failed.sip_480"], Self.calls, all)
    }

    // MARK: - The caller gives up

    func testACallerWhoCancelsWhileTheServiceRingsIsACancelledCallNotAFailure() throws {
        let steps = """
                  - { name: dial, role: caller, do: start, to: [service] }
                  - { wait: 300ms }
                  - { name: hangup, role: caller, do: end }
            """
        let (c, dialogs, completes) = try run(Self.scenario(steps: steps)) {
            SIPRig.OutsideParty(rig: $0, user: "echo", registers: true)
        }
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], Self.calls, "the caller's own CANCEL is no failure: \(all)")
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["calls.unanswered.cancelled"], Self.calls, all)
        XCTAssertEqual(c["sip.requests_sent.CANCEL"], Self.calls, all)
        XCTAssertEqual(c["sip.responses_received.487"], Self.calls, all)
        XCTAssertEqual(c["action.end.fulfilled"], Self.calls, "the end is fulfilled by the 487: \(all)")
        XCTAssertEqual(Array(dialogs.values), Array(repeating: ["early", "terminated cancelled"],
                                                    count: Int(Self.calls)), "\(dialogs)")
        XCTAssertEqual(completes, Array(repeating: "ok", count: 2 * Int(Self.calls)), "starts and ends")
    }
}
