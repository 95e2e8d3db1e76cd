@testable import CallstormCLI
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// The push wake-up path over TLS through the shipped Kamailio the run starts (Scenarios/sip/tls-wake.yaml): the
/// run gives Kamailio a TLS listener with a certificate from callstorm's local CA, every woken device opens a new
/// connection and a full handshake before its REGISTER, and the parked INVITE continues to it. A run whose CA does
/// not trust that certificate fails at once, by name, counted per device, and exits non-zero.
final class SIPWakeTLSRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/tls-wake.yaml")

    func testSleepingDevicesWakeOverTLSThroughTheKamailioTheRunStarts() throws {
        let dir = try TemporaryDirectory.make("sip-wake-tls")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let log = (try? String(contentsOf: outcome.runDirectory.appendingPathComponent("kamailio.log"),
                               encoding: .utf8)) ?? "no kamailio.log"
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.") }) \(log.suffix(2000))"
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0, context)
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(started), context)
        XCTAssertEqual(c.filter { $0.key.hasPrefix(MetricName.sipTransportFailed("")) }, [:], context)
        // Woken devices registered over TLS (Kamailio listened on TLS) and their INVITEs came after.
        XCTAssertTrue(log.contains("tls: 127.0.0.1"), "Kamailio had a TLS listener: \(log.prefix(3000))")
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0, 0, context)
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.registerToInvite]?.totalCount ?? 0, 0,
                             context)
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], context)
        // Every wake's parts (connect, the TLS handshake, the REGISTER), and every handshake a full one.
        let woken = outcome.result.recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0
        for part in [MetricName.wakeConnect, MetricName.wakeHandshake, MetricName.wakeRegister] {
            XCTAssertEqual(outcome.result.recorder.histograms[part]?.totalCount, woken, "\(part): \(context)")
        }
        XCTAssertNil(c["sip.tls.resumed"], context)
        XCTAssertEqual(c["sip.tls.full"], c["sip.registration.registered"], "one full handshake per registration")
        XCTAssertTrue(outcome.verdict.passed, "\(outcome.verdict)")
    }

    /// `tls_resumption: true`: a device offers its last connection's TLS session on its next, and Kamailio resumes
    /// it: the wakes' handshakes are counted resumed (`sip.tls.resumed`) beside the first ones' full ones.
    func testWithTLSResumptionWokenDevicesResumeTheirLastSession() throws {
        let dir = try TemporaryDirectory.make("sip-wake-tls-resumption")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "transport: tls }", with: "transport: tls, tls_resumption: true }")
        XCTAssertTrue(text.contains("tls_resumption: true"), text)
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.") })"
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0, context)
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(started), context)
        let woken = Int64(outcome.result.recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0)
        XCTAssertGreaterThan(woken, 0, context)
        // The first registrations had nothing to resume; wakes (the callees' by push, the callers' to dial) offer
        // the last session. One handshake per registration: the first ones and every wake's.
        XCTAssertGreaterThanOrEqual(c["sip.tls.full"] ?? 0, 20, context)
        XCTAssertGreaterThan(c["sip.tls.resumed"] ?? 0, 0, context)
        XCTAssertEqual((c["sip.tls.full"] ?? 0) + (c["sip.tls.resumed"] ?? 0), c["sip.registration.registered"],
                       context)
        XCTAssertTrue(outcome.verdict.passed, "\(outcome.verdict)")
    }

    func testDevicesWhoseCADoesNotTrustKamailiosCertificateFailByNameAndTheRunFails() throws {
        let dir = try TemporaryDirectory.make("sip-tls-untrusted-run")
        defer { TemporaryDirectory.remove(dir) }
        let other = try LocalCertificateAuthority.ensure(stateDirectory: dir.path + "/other-ca").material
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "target: { sip: { kamailio: { push: true, push_timeout: 3s } } }",
                                  with: "target: { sip: { kamailio: { push: true, push_timeout: 3s }, "
                                      + "ca: \"\(other.caCertificatePath)\" } }")
            .replacingOccurrences(of: "drain: 15s", with: "drain: 3s")
        XCTAssertTrue(text.contains("other-ca"), text)
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.") || $0.key.hasPrefix("dev") })"
        // Every device failed its first handshake (its registration) at once, named, none as a timeout. Most by
        // the certificate; a handshake the loaded machine cut before the certificate arrived is `tls_handshake`
        // (once in a CI run, 2 of 20; not reproduced in 16 runs since), still a named TLS failure.
        let devices = Int64(20)
        let certificate = c[MetricName.sipTransportFailed("tls_certificate")] ?? 0
        let handshake = c[MetricName.sipTransportFailed("tls_handshake")] ?? 0
        XCTAssertGreaterThanOrEqual(certificate + handshake, devices, context)
        XCTAssertGreaterThanOrEqual(certificate * 2, devices, "mostly the certificate: \(context)")
        XCTAssertEqual((c["sip.registration.failed_tls_certificate"] ?? 0)
                       + (c["sip.registration.failed_tls_handshake"] ?? 0), certificate + handshake, context)
        XCTAssertEqual(c[MetricName.devicesRegisterFailed], devices, context)
        XCTAssertNil(c["devices.registered"], context)
        XCTAssertNil(c["sip.timeouts.F"], "failed at once, not after Timer F: \(context)")
        XCTAssertNil(c["calls.completed"], context)
        XCTAssertNotEqual(outcome.exitCode, .passed)
        XCTAssertTrue(outcome.verdict.reasons.contains { $0.contains("tls_certificate") && $0.contains("target.sip.ca") },
                      "\(outcome.verdict)")
    }

    func testASIPCAFileOpenSSLCannotLoadIsRefusedBeforeTheRun() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-tls-bad-ca")
        defer { TemporaryDirectory.remove(dir) }
        try "not a certificate\n".write(to: dir.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "push_timeout: 3s } } }", with: "push_timeout: 3s }, ca: key.pem } }")
        XCTAssertTrue(text.contains("ca: key.pem"), text)
        try text.write(to: dir.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        for command in ["validate", "run"] {
            let result = try ChildProcess.run(binary, [command, "bad.yaml"], in: dir, logs: dir, name: command,
                                              seconds: 60)
            XCTAssertEqual(result.status, 2, "\(command): \(result.out) \(result.err)")
            XCTAssertTrue(result.err.contains("bad.yaml: error: target.sip.ca: TLS client setup failed: cannot load "
                                              + "CA file key.pem"), "\(command): \(result.err)")
        }
    }
}
