@testable import CallstormCLI
import Checker
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// callstorm's own sleeping devices through the shipped Kamailio's forking routes (-A WITH_FORK, fork.cfg), one
/// device per address of record until scenarios have users with several: the wake-up path is the fork's (a
/// parking branch and a push per sleeping binding, the wake REGISTER's `ts_append`) on UDP and TCP alike, every
/// call not hit by a late wake completes, none relayed to a stale contact (no 477), and a device woken past the
/// push timeout is told the call ended by a background push, never a second VoIP push. The several-device cases
/// are KamailioForkTests' (real Kamailio, SIPClient agents as one user's devices).
final class SIPForkRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/incoming-wake.yaml")

    func testSleepingDevicesOverUDPWakeThroughTheForkingRoutes() throws { try wake("udp") }

    func testSleepingDevicesOverTCPWakeThroughTheForkingRoutes() throws { try wake("tcp") }

    private func wake(_ transport: String) throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        let kamailio = try KamailioProcess(defines: [KamailioOptions.forkDefine, "WITH_PUSH", "PUSH_TIMEOUT=2000",
                                                    "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                                    "PUSH_JWT=\"\(jwt)\""])
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-fork-\(transport)")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "transport: udp", with: "transport: \(transport)")
            + "faults:\n  - { name: slow-wake, at: 0s, for: 500ms, sip: { late_wake: { after: 2500ms } } }\n"
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.") || $0.key.hasPrefix("push") }) "
            + "\(kamailio.log.suffix(2000))"
        let started = c["calls.started"] ?? 0
        let late = c[MetricName.fault("sip.late_wake")] ?? 0
        XCTAssertGreaterThan(started, 0)
        XCTAssertGreaterThan(late, 0, context)
        XCTAssertTrue(Books(counters: c).balanced)
        XCTAssertEqual(c["calls.completed"], started - late, context)
        XCTAssertEqual(c[MetricName.callsAttributed(to: "sip.late_wake")], late, context)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], context)
        XCTAssertNil(c["sip.responses_received.477"], context)
        XCTAssertNil(c["sip.misdirected.INVITE"], "no INVITE to a stale contact: \(context)")
        let told = kamailio.log.components(separatedBy: "late wake for ").count - 1
        XCTAssertEqual(told, Int(late), "each late device told once: \(context)")
        let history = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertGreaterThan(history.report.operations, 0)
        XCTAssertEqual(history.report.violations, [], "\(history.report.violations.prefix(3))")
    }
}
