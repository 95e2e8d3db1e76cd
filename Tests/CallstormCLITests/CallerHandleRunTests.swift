@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Caller handles end to end (issue 27, acceptance 3): a server whose VoIP pushes name no caller, name it as a
/// kind the app does not declare, or name it differently from push to push is found, each defect under its own
/// counter and in the verdict; a server that names the registered handle every time is flagged for nothing.
final class CallerHandleRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("caller-handle") }
    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func counters(_ defects: Set<AltCallServer.Defect>) throws -> ([String: Int64], [String]) {
        let gatewayPort = try CustomAPIExample.freePort()
        let alt = AltCallServer(gatewayURL: "http://127.0.0.1:\(gatewayPort)", defects: defects)
        let outcome = try serving(alt) { port in
            try CustomAPIExample.run(serverPort: port, gatewayPort: gatewayPort, in: dir) {
                $0.replacingOccurrences(of: "mix: { incoming-1to1: 50, hold-resume: 50 }",
                                        with: "mix: { incoming-1to1: 100 }\ndevice: { supported_handles: [phone] }")
                    .replacingOccurrences(of: "devices: 40", with: "devices: 12")
                    .replacingOccurrences(of: "ended: [hangup] }", with: "ended: [hangup], handle: \"$.caller\" }")
                    .replacingOccurrences(of: "drain: 15s", with: "drain: 8s")
                    // Ten calls: the twelve devices still call twice each for the most part (pushes to compare).
                    .replacingOccurrences(of: "hold: { rate: 5/s, for: 4s }", with: "hold: { rate: 5/s, for: 2s }")
            }
        }
        return (outcome.result.recorder.counters, outcome.verdict.reasons)
    }

    private func defects(_ c: [String: Int64]) -> [String: Int64] {
        c.filter { $0.key.hasPrefix("handles.caller_") && $0.key != MetricName.callerHandlesChecked }
    }

    func testTheRegisteredHandleEveryTimeIsFlaggedForNothing() throws {
        let (c, reasons) = try counters([])
        XCTAssertGreaterThan(c[MetricName.callerHandlesChecked] ?? 0, 0, "\(c)")
        XCTAssertEqual(defects(c), [:])
        XCTAssertFalse(reasons.contains { $0.contains("caller handle") })
    }

    func testTheReferenceTargetWithDevicesOfEveryHandleKindPassesEveryCheck() throws {
        let outcome = try runScenario("""
            name: handles
            seed: 3
            devices: 24
            push: { deadline: 2s, tls: false }
            load: [ { hold: { rate: 8/s, for: 2s } } ]
            mix: { incoming-1to1: 50, group-merge: 50 }
            behavior: { answer_after: 100ms, talk: 200ms }
            device: { handles: { phone: 50%, email: 30%, generic: 20% } }
            drain: 10s
            """, in: dir)
        let c = outcome.result.recorder.counters
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c) \(outcome.result.notes)")
        XCTAssertGreaterThan(c[MetricName.callerHandlesChecked] ?? 0, 0)
        XCTAssertEqual(defects(c), [:])
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0)
    }

    func testAMissingCallerHandleIsFound() throws {
        let (c, reasons) = try counters([.callerHandleMissing])
        XCTAssertEqual(c[MetricName.callerHandle("missing")], c[MetricName.callerHandlesChecked])
        XCTAssertEqual(Set(defects(c).keys), [MetricName.callerHandle("missing")])
        XCTAssertTrue(reasons.contains { $0.contains("caller handle") && $0.contains("missing") }, "\(reasons)")
    }

    func testAHandleOfAKindTheAppDoesNotDeclareIsFound() throws {
        let (c, _) = try counters([.callerHandleGeneric])
        XCTAssertEqual(c[MetricName.callerHandle("unsupported_kind")], c[MetricName.callerHandlesChecked])
        XCTAssertEqual(Set(defects(c).keys), [MetricName.callerHandle("unsupported_kind")])
    }

    func testAHandleThatChangesFromPushToPushIsFound() throws {
        let (c, _) = try counters([.callerHandleUnstable])
        XCTAssertGreaterThan(c[MetricName.callerHandle("not_registered")] ?? 0, 0, "\(c)")
        XCTAssertGreaterThan(c[MetricName.callerHandle("unstable")] ?? 0, 0, "\(c)")
        XCTAssertEqual(c[MetricName.callerHandle("missing")] ?? 0, 0)
    }
}
