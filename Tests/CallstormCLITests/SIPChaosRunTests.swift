@testable import CallstormCLI
import Checker
import Credentials
import Foundation
import Metrics
import RunFormats
import TestSupport
import XCTest

/// Issue 26, acceptance 2: Scenarios/sip/chaos-wake.yaml against a real Kamailio. Each fault on the wake-up path
/// (push lost, late wake, lost wake REGISTER, SIP datagrams lost, a duplicate push) acts, every call that did not
/// complete is attributed to a fault logged against it, none is left to the server, and the fault-free second of
/// load completes every call.
final class SIPChaosRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/chaos-wake.yaml")

    func testEveryFaultOnTheWakeUpPathIsAttributedAndNoCallIsLeftToKamailio() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        // A push timeout shorter than the late wake's 3 s (the example's comment says the same).
        let kamailio = try KamailioProcess(defines: ["WITH_PUSH", "PUSH_TIMEOUT=2500",
                                                    "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                                    "PUSH_JWT=\"\(jwt)\""])
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-chaos")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("faults") })"
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict.reasons)")
        let books = Books(counters: c)
        XCTAssertTrue(books.balanced, "\(books.problems)")
        XCTAssertEqual(c["calls.started"], c["calls.planned"], context)

        // Each fault acted.
        for kind in ["push.dropped", "sip.late_wake", "sip.register_lost", "sip.message_lost", "sip.message_delayed",
                     "push.duplicated"] {
            XCTAssertGreaterThan(c[MetricName.fault(kind)] ?? 0, 0, "no \(kind): \(context)")
        }
        // Every call that did not complete is put down to a fault logged against it, none to Kamailio.
        let notCompleted = (c["calls.failed"] ?? 0) + (c["calls.missed"] ?? 0)
        XCTAssertGreaterThan(notCompleted, 0, context)
        XCTAssertEqual(c[MetricName.callsAttributedToFaults], notCompleted, context)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], context)
        for kind in ["push.dropped", "sip.late_wake", "sip.register_lost"] {
            XCTAssertGreaterThan(c[MetricName.callsAttributed(to: kind)] ?? 0, 0, "\(kind): \(context)")
        }
        // The INVITEs the woken devices never took timed out at Kamailio: the callers got 408.
        XCTAssertGreaterThan(c["sip.responses_received.408"] ?? 0, 0, context)
        // Lost datagrams were retransmitted (RFC 3261's timers), and the counters show both.
        let lost = c.filter { $0.key.hasPrefix(MetricName.fault("sip.message_lost") + ".") }.values.reduce(0, +)
        XCTAssertEqual(lost, c[MetricName.fault("sip.message_lost")], context)
        // A request the device sent and lost is sent again by its Timer A or E.
        for method in ["INVITE", "BYE", "REGISTER", "CANCEL"]
        where (c[MetricName.sipMessageFault("sip.message_lost", sending: true, label: method)] ?? 0) > 0 {
            XCTAssertGreaterThan(c["sip.retransmissions_sent.\(method)"] ?? 0, 0, "\(method): \(context)")
        }
        // The duplicated push was reported once; its copy is excused by the fault, not a server defect.
        XCTAssertGreaterThan(c[MetricName.pushesVoIPNotRequired("fault")] ?? 0, 0, context)
        XCTAssertEqual(c["conversations.reported"], (c["pushes.accepted"] ?? 0) - (c["pushes.dropped_by_fault"] ?? 0),
                       "one report per push delivered, copies not reported again: \(context)")
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], context)
        XCTAssertEqual(c[MetricName.pushDeadlineMissed] ?? 0, 0, context)
        // The calls of the fault-free last second all completed: with 25 calls, at least those 5.
        XCTAssertGreaterThanOrEqual(c["calls.completed"] ?? 0, 5, context)

        // faults.csv names the call of each fault that hit one; the verdict says who the lost calls are put down to.
        let rows = FaultRow.rows(fromCSV: try String(contentsOf: outcome.runDirectory
            .appendingPathComponent("faults.csv"), encoding: .utf8))
        XCTAssertTrue(rows.filter { $0.kind.hasPrefix("sip.") }.allSatisfy { $0.call >= 0 }, "\(rows.prefix(5))")
        let summary = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.json"),
                                 encoding: .utf8)
        XCTAssertTrue(summary.contains("attributed to injected faults"), "verdict reasons")
        XCTAssertTrue(summary.contains("; 0 with no injected fault on their path"), "verdict reasons")
        // The history checker blames nothing on the server.
        let report = try JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("checker.json")))
        XCTAssertEqual(report.violations.count, 0, "\(report.violations.map(\.message))")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, context)
    }
}
