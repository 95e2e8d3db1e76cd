import Metrics
import Reports
import XCTest

/// SIP devices whose TLS handshake failed are named in the verdict with the key to change (issue 35, acceptance 3).
final class VerdictSIPTransportTests: XCTestCase {
    func testAnUntrustedCertificateIsNamedWithTheCAKeyAndAnyOtherHandshakeFailureWithoutIt() throws {
        XCTAssertNil(Verdict.sipTransportFailures(counters: ["calls.started": 4]))
        XCTAssertNil(Verdict.sipTransportFailures(counters: [MetricName.sipTransportFailed("tls_certificate"): 0]))
        let untrusted = try XCTUnwrap(Verdict.sipTransportFailures(counters: [
            MetricName.sipTransportFailed("tls_certificate"): 3, MetricName.sipTransportFailed("tls_handshake"): 1]))
        XCTAssertTrue(untrusted.hasPrefix("4 SIP device connections failed the TLS handshake"), untrusted)
        XCTAssertTrue(untrusted.contains("(tls_certificate ×3, tls_handshake ×1)"), untrusted)
        XCTAssertTrue(untrusted.contains("set target.sip.ca"), untrusted)
        let broken = try XCTUnwrap(Verdict.sipTransportFailures(counters: [
            MetricName.sipTransportFailed("tls_handshake"): 1]))
        XCTAssertTrue(broken.hasPrefix("1 SIP device connection failed"), broken)
        XCTAssertFalse(broken.contains("target.sip.ca"), broken)
    }
}
