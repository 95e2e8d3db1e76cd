import XCTest
@testable import Scenario

/// `push.auth: certificate` and `push.via: connect` (issue 17): read, described, and checked with positions.
final class PushRouteSectionTests: XCTestCase {
    /// A scenario whose fourth line is `push`.
    private func load(_ push: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: routed\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + push,
                             file: "routed.yaml")
    }

    func testCertificateAuthAndTheCONNECTRouteAreReadInBothShapes() throws {
        let scalar = try load("push: { auth: certificate, via: connect }\n").get()
        XCTAssertEqual(scalar.push.authKind, .certificate)
        XCTAssertEqual(scalar.push.route, .connect)
        XCTAssertTrue(scalar.describe().contains("certificate auth, via CONNECT"), scalar.describe())
        let mapping = try load("push: { auth: { kind: certificate, team: TEAM123456 }, tls: false, via: connect }\n")
            .get()
        XCTAssertEqual(mapping.push.authKind, .certificate)
        XCTAssertEqual(mapping.push.authTeamID, "TEAM123456")
        let plain = try load("").get()
        XCTAssertEqual(plain.push.authKind, .token)
        XCTAssertEqual(plain.push.route, .direct)
    }

    func testUnknownWordsAndCertificatesWithoutTLSAreReportedWithPositions() {
        guard case .failure(let errors) = load("push: { auth: certificat, via: proxy }\n") else {
            return XCTFail("expected errors")
        }
        let text = errors.description
        XCTAssertTrue(text.contains("routed.yaml:4:15: error: 'auth' must be one of token, certificate"), text)
        XCTAssertTrue(text.contains("did you mean 'certificate'?"), text)
        XCTAssertTrue(text.contains("routed.yaml:4:32: error: 'via' must be one of direct, connect"), text)
        guard case .failure(let tlsErrors) = load("push: { auth: certificate, tls: false }\n") else {
            return XCTFail("certificate auth needs TLS")
        }
        XCTAssertTrue(tlsErrors.description.contains("routed.yaml:4:15: error: 'auth: certificate' needs TLS"),
                      tlsErrors.description)
    }
}
