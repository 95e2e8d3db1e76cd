import Foundation
import Metrics
import TestSupport
import XCTest

extension SIPOutsideRunTests {
    /// Issue 32, acceptance 4, end to end: SIPp (deploy/sipp/uac-cancel-ringing.xml) CANCELs each call 300 ms
    /// after the woken phone's 180, through Kamailio with a 2 s push timeout (its 487 waits for the parked branch to
    /// the phone's stale contact to end). The phones would answer after 3 s: nothing connected at either end, by
    /// the caller's choice. Every call is missed, none failed, the books balance, the run passes (no exit 4 for
    /// abandoned calls alone), counters.csv and history.jsonl agree, and SIPp completed its scenario for each.
    func testACallerWhoCancelsWhileTheWokenPhoneRingsIsAMissedCallNotAServerFailure() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-caller-cancel")
        defer { TemporaryDirectory.remove(dir) }
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort, defines: ["PUSH_TIMEOUT=2000"])
        defer { kamailio.stop() }
        let calls = 5
        let text = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/sip/outside-caller.yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "duration: 6s", with: "duration: 3s")
            .replacingOccurrences(of: "answer_after: { uniform: [0ms, 100ms] }", with: "answer_after: { constant: 3s }")
            + "slo: { invariant_violations: \"== 0\" }\n"
        XCTAssertTrue(text.contains("constant: 3s"), "the phones answer late")
        let file = dir.appendingPathComponent("caller-cancel.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let (run, sipp) = try runThenCall(binary, file, out: out, users: Self.root
            .appendingPathComponent("deploy/sipp/devices.csv"), calls: calls, timeout: 40, kamailio: kamailio, in: dir,
                                          sippScenario: "uac-cancel-ringing.xml")
        defer { sipp.stop(); run.stop() }
        XCTAssertEqual(sipp.wait(seconds: 60), 0, sipp.outputText.suffix(3000).description + sipp.errorText
                       + kamailio.log.suffix(2000))
        XCTAssertEqual(run.wait(seconds: 60), 0, "abandoned calls alone are no failure (no exit 4): "
                       + run.errorText.suffix(3000))

        let summary = try SummaryFile(out.appendingPathComponent("summary.json"))
        try assertOutcomesAgree(run: out)
        let c = summary.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], Int64(calls), all)
        XCTAssertEqual(c[MetricName.callsMissed], Int64(calls), "the callers gave up: missed calls: \(all)")
        XCTAssertNil(c[MetricName.callsFailed], "no server failure: \(all)")
        XCTAssertNil(c["action.join.fulfilled"], "nobody answered: \(all)")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let stats = try SIPpStats(dir.appendingPathComponent("sipp.csv"))
        XCTAssertEqual(stats["SuccessfulCall(C)"], calls, stats.text)
        XCTAssertEqual(stats["FailedCall(C)"], 0, stats.text)
    }
}
