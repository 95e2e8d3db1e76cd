@testable import CallstormCLI
import Checker
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// The push wake-up path over TCP: a sleeping device has closed its connection, so Kamailio cannot relay the INVITE
/// to its stale contact; it suspends the INVITE (t_suspend) and the wake REGISTER on a new connection continues it
/// (t_continue). A late wake in the first half second (past a 2 s push timeout) shows the other end of that path:
/// the suspended INVITE times out with 408, the REGISTER that comes after finds nothing to continue, and the call
/// is put down to the fault. The callers sleep too and wake to dial, so the run is also SIPRunTests' former
/// outgoing-over-TCP check (calls between devices over TCP ring, complete and are never retransmitted); the
/// embedded loop pins that with devices that stay awake (SIPCallFlowTests.testOutgoingCallsOverTCPCompleteWith
/// NoRetransmission) and the late wake's 408 (SIPLateWakeTests).
final class SIPWakeTCPRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/incoming-wake.yaml")

    func testSleepingDevicesOverTCPWakeRegisterOnANewConnectionAndCallEachOtherWithNoRetransmission() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        let kamailio = try KamailioProcess(defines: ["WITH_PUSH", "PUSH_TIMEOUT=2000",
                                                    "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                                    "PUSH_JWT=\"\(jwt)\""])
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-wake-tcp")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "transport: udp", with: "transport: tcp")
            + "faults:\n  - { name: slow-wake, at: 0s, for: 500ms, sip: { late_wake: { after: 2500ms } } }\n"
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.res") }) "
            + "\(kamailio.log.suffix(2000))"
        let started = c["calls.started"] ?? 0
        let late = c[MetricName.fault("sip.late_wake")] ?? 0
        XCTAssertGreaterThan(started, 0)
        XCTAssertGreaterThan(late, 0, context)
        XCTAssertTrue(Books(counters: c).balanced)
        // Every call the late wake did not hit completes over TCP; those it hit timed out with 408 and are its.
        XCTAssertEqual(c["calls.completed"], started - late, context)
        XCTAssertEqual(c[MetricName.callsAttributed(to: "sip.late_wake")], late, context)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], context)
        XCTAssertEqual(c["sip.responses_received.408"], late, context)
        // Not one INVITE relayed to a stale connection (which fails at once with 477), none retransmitted.
        XCTAssertNil(c["sip.responses_received.477"], context)
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], context)
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.registerToInvite]?.totalCount ?? 0, 0)
        // Calls between devices over TCP ring at the caller, and the history checker finds nothing broken.
        XCTAssertGreaterThan(c["sip.requests_sent.INVITE"] ?? 0, 0, context)
        XCTAssertGreaterThan(c["sip.responses_received.180"] ?? 0, 0, context)
        let history = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertGreaterThan(history.report.operations, 0)
        XCTAssertEqual(history.report.violations, [], "\(history.report.violations.prefix(3))")
    }
}
