import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26, acceptance 3: SIPp (deploy/sipp/uac-many.xml, dialling the users of an injection file) places calls
/// through Kamailio to callstorm's sleeping devices, which run Scenarios/sip/outside-caller.yaml (the flow's caller
/// is `outside`): they wake by push, report, REGISTER, answer and hang up, and the wake-up figures are measured on
/// callstorm's side while SIPp counts its own calls. The callstorm binary runs the scenario, so the test can see on
/// its stderr when the devices have registered and SIPp may start.
final class SIPOutsideRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Kamailio with the push route, pushing to callstorm's gateway on `pushPort` with a fresh provider token.
    private func pushingKamailio(pushPort: Int) throws -> KamailioProcess {
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        return try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                            "PUSH_JWT=\"\(jwt)\""])
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
        let file = dir.appendingPathComponent("outside-caller.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let run = try ChildProcess.start(binary, ["run", file.path, "--out", out.path], in: dir, logs: dir,
                                         name: "callstorm")
        defer { run.stop() }
        XCTAssertTrue(eventually(60, every: 0.05) { run.errorText.contains("waiting for calls from outside parties") },
                      run.errorText)

        let sippPort = try XCTUnwrap(KamailioProcess.freePort())
        let sipp = try ChildProcess.start("/usr/bin/sipp", [
            "-sf", Self.root.appendingPathComponent("deploy/sipp/uac-many.xml").path,
            "-inf", Self.root.appendingPathComponent("deploy/sipp/devices.csv").path,
            "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(sippPort)", "-m", "\(calls)", "-r", "20",
            "-timeout", "60s", "-timeout_error", "-nostdin",
            "-trace_stat", "-stf", dir.appendingPathComponent("sipp.csv").path,
        ], in: dir, logs: dir, name: "sipp")
        defer { sipp.stop() }
        // SIPp's own verdict: 0 when every call succeeded.
        XCTAssertEqual(sipp.wait(seconds: 60), 0, sipp.outputText.suffix(3000).description + sipp.errorText
                       + kamailio.log.suffix(2000))
        XCTAssertEqual(run.wait(seconds: 60), 0, run.errorText.suffix(3000).description)

        let summary = try SummaryFile(out.appendingPathComponent("summary.json"))
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
        // SIPp's statistics file (`;`-separated, a header line, then one line per dump): its own counts.
        let stats = try String(contentsOf: dir.appendingPathComponent("sipp.csv"), encoding: .utf8)
        let lines = stats.split(separator: "\n").map { $0.split(separator: ";", omittingEmptySubsequences: false) }
        func stat(_ column: String) -> Int? {
            guard let header = lines.first, let last = lines.last, let i = header.firstIndex(of: Substring(column)),
                  i < last.count else { return nil }
            return Int(last[i])
        }
        XCTAssertEqual(stat("SuccessfulCall(C)"), calls, stats)
        XCTAssertEqual(stat("FailedCall(C)"), 0, stats)
    }
}
