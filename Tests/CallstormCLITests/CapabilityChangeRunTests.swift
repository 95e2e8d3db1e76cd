@testable import CallstormCLI
import Foundation
import Metrics
import Reports
import TestSupport
import XCTest

/// Capability changes end to end (issue 27, acceptance 3): a server whose "answered" push says the call can no
/// longer be held is followed: the caller's conversation loses `pausing`, and the flow's hold step fails as
/// `missing_capability:pausing` (LiveCommunicationKit fails the action), counted per step and named in the
/// verdict. A server that keeps the capability changes nothing.
final class CapabilityChangeRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("capability-change") }
    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func run(_ defects: Set<AltCallServer.Defect>) throws -> RunCommand.Outcome {
        let gatewayPort = try CustomAPIExample.freePort()
        let alt = AltCallServer(gatewayURL: "http://127.0.0.1:\(gatewayPort)", defects: defects)
        return try serving(alt) { port in
            try CustomAPIExample.run(serverPort: port, gatewayPort: gatewayPort, in: dir) {
                $0.replacingOccurrences(of: "mix: { incoming-1to1: 50, hold-resume: 50 }",
                                        with: "mix: { hold-resume: 100 }")
                    .replacingOccurrences(of: "ended: [hangup] }", with: "ended: [hangup], capabilities: \"$.caps\", "
                        + "capability_words: { pausing: [hold], merging: [merge], unmerging: [split] } }")
                    .replacingOccurrences(of: "action_timeout: 5s", with: "action_timeout: 2s")
                    .replacingOccurrences(of: "drain: 15s", with: "drain: 8s")
                    .replacingOccurrences(of: "hold: { rate: 5/s, for: 4s }", with: "hold: { rate: 5/s, for: 2s }")
            }
        }
    }

    func testAServerThatKeepsTheCapabilityChangesNothing() throws {
        let outcome = try run([])
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c["action.pause.fulfilled"] ?? 0, 0, "\(c)")
        XCTAssertEqual(c["action.pause.fulfilled"], c["action.pause.started"])
        XCTAssertTrue(c.keys.filter { $0.hasPrefix("events.capabilities.") || $0.hasPrefix("missing_capability.") }
            .isEmpty, "\(c)")
        XCTAssertFalse(outcome.verdict.reasons.contains { $0.contains("capabilit") })
    }

    func testAWithdrawalMidCallIsFollowedAndTheHoldStepFailsForTheMissingCapability() throws {
        let outcome = try run([.withdrawHoldOnAnswer])
        let c = outcome.result.recorder.counters
        let lost = c[MetricName.capabilityLost("pausing")] ?? 0
        XCTAssertGreaterThan(lost, 0, "\(c)")
        XCTAssertEqual(c[MetricName.capabilityLost("merging")] ?? 0, 0, "only what was withdrawn")
        let refused = c[MetricName.missingCapability("pausing", step: "hold-resume/hold")] ?? 0
        XCTAssertGreaterThan(refused, 0, "\(c)")
        XCTAssertEqual(c["action.pause.failed.missing_capability:pausing"], refused)
        XCTAssertEqual(c["action.pause.fulfilled"] ?? 0, 0)
        let line = try XCTUnwrap(outcome.verdict.reasons.first { $0.contains("capabilities withdrawn") })
        XCTAssertTrue(line.contains("pausing \(lost)") && line.contains("pausing@hold-resume/hold \(refused)"), line)
    }
}
