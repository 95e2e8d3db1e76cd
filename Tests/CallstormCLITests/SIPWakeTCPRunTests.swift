@testable import CallstormCLI
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// The push wake-up path over TCP: a sleeping device has closed its connection, so Kamailio cannot relay the INVITE
/// to its stale contact; the INVITE waits parked until the wake REGISTER's new connection gives it a branch.
final class SIPWakeTCPRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/incoming-wake.yaml")

    func testSleepingDevicesOverTCPAreWokenRegisterOnANewConnectionAndTakeTheCall() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        let kamailio = try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                                    "PUSH_JWT=\"\(jwt)\""])
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-wake-tcp")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)")
            .replacingOccurrences(of: "transport: udp", with: "transport: tcp")
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0)
        XCTAssertEqual(c["calls.completed"], started, "\(c) \(kamailio.log.suffix(2000))")
        // Not one INVITE relayed to a stale connection (which fails at once with 477).
        XCTAssertNil(c["sip.responses_received.477"], "\(c)")
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], "no retransmission over TCP: \(c)")
        XCTAssertTrue(Books(counters: c).balanced)
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.registerToInvite]?.totalCount ?? 0, 0)
    }
}
