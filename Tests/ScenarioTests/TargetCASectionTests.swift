import Foundation
import TestSupport
import XCTest
@testable import Scenario

/// `target.ca` (a server whose certificate its own CA signed): resolved beside the scenario file, checked readable,
/// and refused with a position where it cannot apply.
final class TargetCASectionTests: XCTestCase {
    private func load(_ target: String, file: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: ca\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + target,
                             file: file)
    }

    func testCAPathIsResolvedBesideTheScenarioFileAndKeptWhenAbsolute() throws {
        let dir = try TemporaryDirectory.make("target-ca")
        defer { TemporaryDirectory.remove(dir) }
        let ca = dir.appendingPathComponent("ca.pem")
        try "-----BEGIN CERTIFICATE-----\n".write(to: ca, atomically: true, encoding: .utf8)
        let scenarioFile = dir.appendingPathComponent("run.yaml").path
        let relative = try load("target: { url: \"https://127.0.0.1:8443\", ca: ca.pem }\n", file: scenarioFile).get()
        XCTAssertEqual(relative.targetCA, ca.path)
        XCTAssertTrue(relative.describe().contains("target https://127.0.0.1:8443 (trusting the CA in \(ca.path))"),
                      relative.describe())
        let absolute = try load("target: { url: \"https://127.0.0.1:8443\", ca: \"\(ca.path)\" }\n",
                                file: "elsewhere.yaml").get()
        XCTAssertEqual(absolute.targetCA, ca.path)
        XCTAssertNil(try load("target: { url: \"https://127.0.0.1:8443\" }\n", file: scenarioFile).get().targetCA)
    }

    func testMissingCAFileAndCAWithoutAURLAreReportedWithPositions() {
        guard case .failure(let missing) = load("target: { url: \"https://127.0.0.1:8443\", ca: no-such-ca.pem }\n",
                                                file: "/nonexistent-dir/run.yaml") else {
            return XCTFail("a CA file that cannot be read is an error")
        }
        XCTAssertTrue(missing.description.contains(
            "/nonexistent-dir/run.yaml:4:46: error: cannot read CA file '/nonexistent-dir/no-such-ca.pem': "
                + "No such file or directory"), missing.description)
        guard case .failure(let embedded) = load("target: { embedded: true, ca: ca.pem }\n", file: "run.yaml") else {
            return XCTFail("the embedded target takes no CA")
        }
        XCTAssertTrue(embedded.description.contains("run.yaml:4:31: error: 'ca' is the certificate authority of your "
                                                    + "own server's https; it needs a 'url' beside it"),
                      embedded.description)
    }
}
