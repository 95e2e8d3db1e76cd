@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26: devices calling a party callstorm does not simulate. SIPp as a UAS (deploy/sipp/uas.xml), registered
/// at Kamailio as `echo` by deploy/sipp/register.xml, answers the INVITEs of Scenarios/sip/outside-callee.yaml,
/// whose flow's callee is `outside` with that URI: every call completes on both sides and the callers' figures
/// are measured.
final class SIPOutsideCalleeRunTests: XCTestCase {
    private static let sipp = CustomAPIExample.root.appendingPathComponent("deploy/sipp")

    func testDevicesCallAnOutsideURIAnsweredBySIPpAndEveryCallCompletesOnBothSides() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-outside-callee")
        defer { TemporaryDirectory.remove(dir) }
        let calls = 10
        // The UAS's port must be bound before its contact is registered and the devices call it: a datagram sent
        // earlier is refused and the call fails, however rarely SIPp starts that slowly.
        let (uas, uasPort) = try ChildProcess.startUDPListener("/usr/bin/sipp", arguments: { port in [
            "-sf", Self.sipp.appendingPathComponent("uas.xml").path, "-s", "echo", "-i", "127.0.0.1",
            "-p", "\(port)", "-m", "\(calls)", "-timeout", "60s", "-timeout_error", "-nostdin",
        ] }, in: dir, logs: dir, name: "sipp-uas", freePort: KamailioProcess.freePort)
        defer { uas.stop() }
        let registerPort = try XCTUnwrap(KamailioProcess.freePort())
        let register = try ChildProcess.run("/usr/bin/sipp", [
            "-sf", Self.sipp.appendingPathComponent("register.xml").path, "-s", "echo",
            "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(registerPort)", "-m", "1",
            "-au", "echo", "-ap", "callstorm", "-key", "uas_port", "\(uasPort)",
            "-timeout", "20s", "-timeout_error", "-nostdin",
        ], in: dir, logs: dir, name: "sipp-register", seconds: 30)
        XCTAssertEqual(register.status, 0, register.out.suffix(2000) + register.err)

        let text = try String(contentsOf: CustomAPIExample.root.appendingPathComponent(
            "Scenarios/sip/outside-callee.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            + "slo: { invariant_violations: \"== 0\" }\n"
        let run = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: run.runDirectory)
        let c = run.result.recorder.counters
        XCTAssertEqual(run.exitCode, .passed, "\(run.verdict.reasons) \(run.result.notes)")
        XCTAssertEqual(c[MetricName.callsStarted], Int64(calls), "\(c)")
        XCTAssertEqual(c[MetricName.callsCompleted], Int64(calls), "\(c) \(run.result.notes)")
        XCTAssertNil(c[MetricName.callsStartedByOutside], "callstorm placed these calls: \(c)")
        XCTAssertEqual(c["sip.requests_sent.BYE"], Int64(calls), "\(c)")
        XCTAssertNil(c["sip.requests_sent.CANCEL"], "await_answer held every hang-up until the 200: \(c)")
        XCTAssertEqual(c["sip.responses_received.200"].map { $0 >= Int64(2 * calls) }, true, "\(c)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let histograms = run.result.recorder.histograms
        for metric in [MetricName.setupTime, MetricName.postDialDelay, MetricName.fulfillment("end")] {
            XCTAssertEqual(histograms[metric]?.totalCount, Int64(calls), "\(metric): \(c)")
        }
        // SIPp's own verdict: 0 once it answered every call and each ended with the caller's BYE.
        XCTAssertEqual(uas.wait(seconds: 30), 0, uas.outputText.suffix(3000).description + uas.errorText)
    }
}
