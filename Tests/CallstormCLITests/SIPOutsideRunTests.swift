import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26, acceptance 3: SIPp (deploy/sipp/uac-many.xml, dialling the users of an injection file) places calls
/// through Kamailio to callstorm's sleeping devices, which run Scenarios/sip/outside-caller.yaml (the flow's caller
/// is `outside`): they wake by push, report, REGISTER, answer and hang up, and the wake-up figures are measured on
/// callstorm's side while SIPp counts its own calls; half the wakes come 50 ms late, a fault decided per call that
/// applies to outside calls too. The callstorm binary runs the scenario, so the test can see on its stderr when the
/// devices have registered and SIPp may start.
final class SIPOutsideRunTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Kamailio with the push route, pushing to callstorm's gateway on `pushPort` with a fresh provider token.
    func pushingKamailio(pushPort: Int, defines more: [String] = []) throws -> KamailioProcess {
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        return try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                            "PUSH_JWT=\"\(jwt)\""] + more)
    }

    /// Starts callstorm on `scenario` and, once its devices wait for outside calls, SIPp's uac-many.xml placing
    /// `calls` calls at 20/s through `kamailio` to the users listed in `users` (an injection file).
    func runThenCall(_ binary: String, _ scenario: URL, out: URL, users: URL, calls: Int, timeout: Int,
                             kamailio: KamailioProcess, in dir: URL, sippScenario: String = "uac-many.xml")
        throws -> (ChildProcess, ChildProcess) {
        let run = try ChildProcess.start(binary, ["run", scenario.path, "--out", out.path], in: dir, logs: dir,
                                         name: "callstorm")
        XCTAssertTrue(eventually(60, every: 0.05) { run.errorText.contains("waiting for calls from outside parties") },
                      run.errorText)
        do {
            let sippPort = try XCTUnwrap(KamailioProcess.freePort())
            let sipp = try ChildProcess.start("/usr/bin/sipp", [
                "-sf", Self.root.appendingPathComponent("deploy/sipp/\(sippScenario)").path, "-inf", users.path,
                "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(sippPort)", "-m", "\(calls)", "-r", "20",
                "-timeout", "\(timeout)s", "-timeout_error", "-nostdin",
                "-trace_stat", "-stf", dir.appendingPathComponent("sipp.csv").path,
            ], in: dir, logs: dir, name: "sipp")
            return (run, sipp)
        } catch {
            run.stop()
            throw error
        }
    }

    func testSIPpCallsWakeSleepingDevicesThatReportAnswerAndHangUpWithTheWakeUpFiguresMeasured() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-outside")
        defer { TemporaryDirectory.remove(dir) }
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        let calls = 20
        let example = Self.root.appendingPathComponent("Scenarios/sip/outside-caller.yaml")
        let text = try String(contentsOf: example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "duration: 6s", with: "duration: 4s")
            + "slo: { invariant_violations: \"== 0\" }\n"
            // Some wakes come 50 ms late (well inside Kamailio's push timeout): a fault decided per call, which
            // applies to an outside call once its push made it one of ours.
            + "faults: [ { name: late, at: 0s, for: 4s, sip: { late_wake: { probability: 50%, after: 50ms } } } ]\n"
        let file = dir.appendingPathComponent("outside-caller.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let (run, sipp) = try runThenCall(binary, file, out: out, users: Self.root
            .appendingPathComponent("deploy/sipp/devices.csv"), calls: calls, timeout: 60, kamailio: kamailio, in: dir)
        defer { sipp.stop(); run.stop() }
        // SIPp's own verdict: 0 when every call succeeded.
        XCTAssertEqual(sipp.wait(seconds: 60), 0, sipp.outputText.suffix(3000).description + sipp.errorText
                       + kamailio.log.suffix(2000))
        XCTAssertEqual(run.wait(seconds: 60), 0, run.errorText.suffix(3000).description)

        let summary = try SummaryFile(out.appendingPathComponent("summary.json"))
        try assertOutcomesAgree(run: out)
        let c = summary.counters
        XCTAssertEqual(c[MetricName.callsStartedByOutside], Int64(calls), "\(c) \(summary.notes)")
        XCTAssertEqual(c[MetricName.callsStarted], Int64(calls), "\(c)")
        XCTAssertEqual(c[MetricName.callsCompleted], Int64(calls), "\(c) \(summary.notes)")
        XCTAssertNil(c[MetricName.callsPlanned], "callstorm planned none of them: \(c)")
        XCTAssertEqual(c["sip.requests_received.INVITE"], Int64(calls), "\(c)")
        XCTAssertEqual(c["action.join.fulfilled"], Int64(calls), "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], Int64(calls), "\(c)")
        XCTAssertEqual(c[MetricName.pushDeadlineMissed] ?? 0, 0, "\(c)")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, "\(c)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        for metric in [MetricName.pushToReport, MetricName.pushToRegister, MetricName.registerToInvite,
                       MetricName.answerToAck, MetricName.fulfillment("join")] {
            XCTAssertEqual(summary.metrics[metric]?["count"].map { Int($0) }, calls, "\(metric): \(summary.metrics)")
        }
        XCTAssertNil(summary.metrics[MetricName.inviteToPush], "the caller's INVITE is SIPp's, not observed")
        let late = try String(contentsOf: out.appendingPathComponent("faults.csv"), encoding: .utf8)
            .split(separator: "\n").filter { $0.contains(",sip.late_wake,") }
        XCTAssertGreaterThan(late.count, 0, "the late wakes applied to outside calls: \(c)")
        XCTAssertLessThan(late.count, calls, "half of them, by the seed")
        XCTAssertEqual(c["faults.sip.late_wake"], Int64(late.count), "\(c)")
        // Each row names its outside call (the call column: an id with bit 42 set, never -1).
        XCTAssertTrue(late.allSatisfy { Int($0.split(separator: ",")[4]).map { $0 >= 1 << 42 } == true }, "\(late)")
        let stats = try SIPpStats(dir.appendingPathComponent("sipp.csv"))
        XCTAssertEqual(stats["SuccessfulCall(C)"], calls, stats.text)
        XCTAssertEqual(stats["FailedCall(C)"], 0, stats.text)
    }

    /// Call waiting, first with awake devices (`sleep: false`), then on the wake-up path, through one Kamailio
    /// with the push route (which relays to an awake device's contact as to any). Awake devices take outside calls
    /// from the INVITE itself, and an INVITE for a second call reaching a device already in one is not taken for
    /// its call: the device reports it and its model decides (`max_conversation_groups: 2`). SIPp dials dev-0
    /// three times and dev-1 once, 50 ms apart, while each device talks for half a second: dev-0 takes the second
    /// call beside its first (holding the first by re-INVITE, hold-and-accept) and answers the third 486 Busy Here,
    /// over its limit; every call it took completes. On the wake-up path the second and third calls' pushes reach
    /// dev-0 awake in its first call; it reports them (PushKit's rule) without waking again, and their INVITEs
    /// decide as above. The embedded loop pins both in one delivery order (SIPCallWaitingTests).
    func testOutsideCallsWaitingOnAnAwakeAndOnASleepingDeviceAreTakenAsTheModelAllowsElseBusyHere() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        try callWaiting(sleep: false, kamailio: kamailio, pushPort: pushPort)
        try callWaiting(sleep: true, kamailio: kamailio, pushPort: pushPort)
    }

    private func callWaiting(sleep: Bool, kamailio: KamailioProcess, pushPort: Int) throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-outside-waiting")
        defer { TemporaryDirectory.remove(dir) }
        let example = Self.root.appendingPathComponent("Scenarios/sip/outside-caller.yaml")
        let text = try String(contentsOf: example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "duration: 6s", with: "duration: 1s")
            .replacingOccurrences(of: "devices: 20", with: "devices: 2")
            .replacingOccurrences(of: "sleep: true, transport: udp",
                                  with: "sleep: \(sleep), transport: udp, max_conversation_groups: 2")
            .replacingOccurrences(of: "talk: { uniform: [100ms, 300ms] }", with: "talk: { uniform: [500ms, 600ms] }")
            + "slo: { invariant_violations: \"== 0\" }\n"
        XCTAssertTrue(text.contains("sleep: \(sleep)") && text.contains("[500ms, 600ms]"), text)
        let file = dir.appendingPathComponent("outside-waiting.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let users = dir.appendingPathComponent("users.csv")
        try "SEQUENTIAL\ndev-0;\ndev-0;\ndev-0;\ndev-1;\n".write(to: users, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let (run, sipp) = try runThenCall(binary, file, out: out, users: users, calls: 4, timeout: 30,
                                          kamailio: kamailio, in: dir)
        defer { sipp.stop(); run.stop() }
        // SIPp fails the call answered 486 (its scenario wants a 200): exit 1, not a timeout.
        XCTAssertEqual(sipp.wait(seconds: 30), 1, sipp.outputText.suffix(3000).description + sipp.errorText
                       + kamailio.log.suffix(2000))
        XCTAssertEqual(run.wait(seconds: 30), 0, run.errorText.suffix(3000).description)

        let summary = try SummaryFile(out.appendingPathComponent("summary.json"))
        try assertOutcomesAgree(run: out)
        let c = summary.counters
        XCTAssertEqual(c[MetricName.callsStartedByOutside], 3, "\(c) \(summary.notes)")
        XCTAssertEqual(c[MetricName.callsCompleted], 3, "\(c) \(summary.notes)")
        XCTAssertEqual(c["sip.call_waiting.held"], 1, "dev-0 held its first call to take the second: \(c)")
        XCTAssertEqual(c[MetricName.callsOutsideRefused("busy")], 1, "\(c)")
        XCTAssertEqual(c["conversations.refused_over_limit"], 1, "\(c)")
        XCTAssertEqual(c["conversations.reported"], 4, "each call reported once, its push or its INVITE: \(c)")
        XCTAssertEqual(c["sip.responses_sent.486"], 1, "\(c)")
        XCTAssertEqual(c["sip.requests_received.INVITE"], 4, "\(c)")
        XCTAssertEqual(c["action.join.fulfilled"], 3, "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], 3, "\(c)")
        XCTAssertNil(c["pushes.unexpected"], "the busy INVITE is an outside call refused: \(c)")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, "\(c)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        // A sleeping device wakes for its first call only (dev-0's first, dev-1's): the waiting calls find it awake.
        XCTAssertEqual(summary.metrics[MetricName.pushToRegister]?["count"].map { Int($0) }, sleep ? 2 : nil,
                       "\(summary.metrics)")
        let stats = try SIPpStats(dir.appendingPathComponent("sipp.csv"))
        XCTAssertEqual(stats["SuccessfulCall(C)"], 3, stats.text)
        XCTAssertEqual(stats["FailedCall(C)"], 1, stats.text)
    }
}

extension SIPOutsideRunTests {
    /// Issue 32, acceptance 3: SIPp (deploy/sipp/uac-bye-before-ack.xml) hangs up each call the instant it is
    /// answered, its BYE before its ACK, so the woken phone sees the BYE first. Its dialog was confirmed by its 200
    /// and its join fulfilled there: every call is completed on both sides, no join fails, and callstorm exits 0.
    func testACallerWhoseByeComesBeforeItsAckCompletesEveryCallOnBothSides() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-bye-before-ack")
        defer { TemporaryDirectory.remove(dir) }
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        let calls = 10
        let text = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/sip/outside-caller.yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "duration: 6s", with: "duration: 3s")
            + "slo: { invariant_violations: \"== 0\" }\n"
        let file = dir.appendingPathComponent("bye-before-ack.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let (run, sipp) = try runThenCall(binary, file, out: out, users: Self.root
            .appendingPathComponent("deploy/sipp/devices.csv"), calls: calls, timeout: 30, kamailio: kamailio, in: dir,
                                          sippScenario: "uac-bye-before-ack.xml")
        defer { sipp.stop(); run.stop() }
        XCTAssertEqual(sipp.wait(seconds: 60), 0, sipp.outputText.suffix(3000).description + sipp.errorText
                       + kamailio.log.suffix(2000))
        XCTAssertEqual(run.wait(seconds: 60), 0, run.errorText.suffix(3000).description)

        let c = try SummaryFile(out.appendingPathComponent("summary.json")).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], Int64(calls), all)
        XCTAssertEqual(c[MetricName.callsCompleted], Int64(calls), all)
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["action.join.fulfilled"], Int64(calls), all)
        XCTAssertTrue(c.keys.allSatisfy { !$0.hasPrefix("action.join.failed") }, all)
        XCTAssertEqual(c["sip.requests_received.BYE"], Int64(calls), all)
        // (The ACKs that come after find the phones asleep again, their sockets closed: nothing to count.)
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let stats = try SIPpStats(dir.appendingPathComponent("sipp.csv"))
        XCTAssertEqual(stats["SuccessfulCall(C)"], calls, stats.text)
        XCTAssertEqual(stats["FailedCall(C)"], 0, stats.text)
    }
}

/// SIPp's statistics file (`-trace_stat -stf`: `;`-separated, a header line, then one line per dump): its own
/// counts, read from the last dump.
struct SIPpStats {
    let text: String
    private let lines: [[Substring]]

    init(_ file: URL) throws {
        text = try String(contentsOf: file, encoding: .utf8)
        lines = text.split(separator: "\n").map { $0.split(separator: ";", omittingEmptySubsequences: false) }
    }

    subscript(_ column: String) -> Int? {
        guard let header = lines.first, let last = lines.last, let i = header.firstIndex(of: Substring(column)),
              i < last.count else { return nil }
        return Int(last[i])
    }
}
