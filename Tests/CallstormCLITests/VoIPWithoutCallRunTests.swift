@testable import CallstormCLI
import Foundation
import HTTPServer
import Metrics
import Reports
import TestSupport
import XCTest

/// PushKit's rule end to end (issue 27, acceptance 1): a server that cancels ringing calls with a VoIP push and
/// resends the VoIP push of ended calls is flagged by cause in the verdict and summary.json; with
/// `on_voip_without_call: terminate` its devices are terminated and, past `block_after_misses`, blocked. A server
/// without those defects is flagged for nothing.
final class VoIPWithoutCallRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("voip-without-call") }
    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func run(_ defects: Set<AltCallServer.Defect>, device: String = "") throws -> RunCommand.Outcome {
        let gatewayPort = try CustomAPIExample.freePort()
        let alt = AltCallServer(gatewayURL: "http://127.0.0.1:\(gatewayPort)", defects: defects)
        return try serving(alt) { port in
            try CustomAPIExample.run(serverPort: port, gatewayPort: gatewayPort, in: dir) {
                $0.replacingOccurrences(of: "mix: { incoming-1to1: 50, hold-resume: 50 }",
                                        with: "mix: { incoming-1to1: 50, caller-cancels: 50 }\n\(device)")
                    .replacingOccurrences(of: "action_timeout: 5s", with: "action_timeout: 2s")
                    .replacingOccurrences(of: "drain: 15s", with: "drain: 8s")
                    .replacingOccurrences(of: "deadline: 2s,", with: "deadline: 2s, block_after_misses: 1,")
                    // The example's twenty calls in half its time.
                    .replacingOccurrences(of: "hold: { rate: 5/s, for: 4s }", with: "hold: { rate: 10/s, for: 2s }")
            }
        }
    }

    private func summary(_ outcome: RunCommand.Outcome) throws -> ReportSummary {
        try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory.appendingPathComponent("summary.json")))
    }

    func testACorrectServerSendsNoVoIPPushWithoutACall() throws {
        let outcome = try run([])
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c["pushes.received.voip"] ?? 0, 0)
        XCTAssertEqual(c[MetricName.pushesVoIPWithoutCall] ?? 0, 0, "\(c)")
        XCTAssertFalse(outcome.verdict.reasons.contains { $0.contains("carried no new call") })
        XCTAssertEqual(try summary(outcome).ratios?.voipWithoutCallRate, 0)
    }

    func testCancelAndResendPushesAreFlaggedByCauseAndTheAppsReportAndEndThem() throws {
        let outcome = try run([.cancelByVoIP, .resendVoIPAfterEnd])
        let c = outcome.result.recorder.counters
        let known = c[MetricName.pushesVoIPWithoutCall("known_conversation")] ?? 0
        let ended = c[MetricName.pushesVoIPWithoutCall("ended_conversation")] ?? 0
        XCTAssertGreaterThan(known, 0, "the cancel of a ringing call: \(c)")
        XCTAssertGreaterThan(ended, 0, "the resend of an ended call: \(c)")
        XCTAssertEqual(c[MetricName.pushesVoIPWithoutCall], known + ended)
        XCTAssertEqual(c[MetricName.pushesVoIPReportedAndEnded], c[MetricName.pushesVoIPWithoutCall])
        XCTAssertEqual(c[MetricName.devicesTerminatedVoIPWithoutCall] ?? 0, 0)
        let line = try XCTUnwrap(outcome.verdict.reasons.first { $0.contains("carried no new call") })
        XCTAssertTrue(line.contains("known_conversation \(known)") && line.contains("ended_conversation \(ended)"),
                      line)
        let json = try summary(outcome)
        XCTAssertEqual(json.books?.problems, [])
        XCTAssertTrue(json.verdict.reasons.contains(line))
        XCTAssertGreaterThan(json.ratios?.voipWithoutCallRate ?? 0, 0)
        let html = try String(contentsOfFile: outcome.reportPath, encoding: .utf8)
        XCTAssertTrue(html.contains("server defect: "), "the banner names it")
    }

    func testTerminatedAppsAreCountedAndBlockedPastTheLimit() throws {
        let outcome = try run([.cancelByVoIP, .resendVoIPAfterEnd],
                              device: "device: { on_voip_without_call: terminate }")
        let c = outcome.result.recorder.counters
        let terminated = c[MetricName.devicesTerminatedVoIPWithoutCall] ?? 0
        XCTAssertGreaterThan(terminated, 0, "\(c)")
        XCTAssertEqual(terminated, c[MetricName.pushesVoIPWithoutCall])
        XCTAssertEqual(c[MetricName.pushesVoIPReportedAndEnded] ?? 0, 0)
        // block_after_misses: 1: each terminated device is no longer launched for VoIP pushes.
        XCTAssertEqual(c[MetricName.devicesVoIPBlocked], terminated, "\(c)")
        XCTAssertGreaterThan(c[MetricName.pushesBlocked] ?? 0, 0, "later pushes to blocked devices: \(c)")
        XCTAssertGreaterThan(c["calls.app_terminated"] ?? 0, 0, "ringing callees killed by the cancel push")
        XCTAssertEqual(try summary(outcome).books?.problems, [], "every action accounted for")
    }
}
