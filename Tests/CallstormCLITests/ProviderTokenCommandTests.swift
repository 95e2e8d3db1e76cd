@testable import CallstormCLI
import Credentials
import Foundation
import TestSupport
import XCTest

/// `callstorm provider-token`: a token the gateway's key verifies, with the ids APNs requires, and the first-run
/// hint for a refused device token in the words of the devices the run has.
final class ProviderTokenCommandTests: XCTestCase {
    func testTheTokenIsSignedByTheNamedKeyWithItsIdsAndIssueTime() throws {
        let dir = try TemporaryDirectory.make("provider-token")
        defer { TemporaryDirectory.remove(dir) }
        let key = try ES256Key.generate()
        let file = dir.appendingPathComponent("AuthKey.p8")
        try key.privateKeyPEM.write(to: file, atomically: true, encoding: .utf8)
        let token = try ProviderTokenCommand.token(["--key", "ABCDE12345=\(file.path)", "--team", "TEAM123456",
                                                    "--issued-at", "1767225600"])
        let parts = token.split(separator: ".")
        XCTAssertEqual(parts.count, 3, token)
        let header = String(decoding: try XCTUnwrap(Base64URL.decode(parts[0])), as: UTF8.self)
        let claims = String(decoding: try XCTUnwrap(Base64URL.decode(parts[1])), as: UTF8.self)
        XCTAssertEqual(header, "{\"alg\":\"ES256\",\"kid\":\"ABCDE12345\"}")
        XCTAssertEqual(claims, "{\"iss\":\"TEAM123456\",\"iat\":1767225600}")
        XCTAssertTrue(key.verify(Array("\(parts[0]).\(parts[1])".utf8),
                                 signature: try XCTUnwrap(Base64URL.decode(parts[2]))), "the key verifies it")
        let fresh = try ProviderTokenCommand.token([])
        XCTAssertEqual(fresh.split(separator: ".").count, 3, "without a key, a fresh one signs")
    }

    func testIdsThatAreNotTenCharactersAndAMissingKeyAreRefusedWithWhatToGive() {
        XCTAssertThrowsError(try ProviderTokenCommand.token(["--team", "TEAM"])) { error in
            XCTAssertTrue("\(error)".contains("10 characters"), "\(error)")
        }
        XCTAssertThrowsError(try ProviderTokenCommand.token(["--key", "SHORT=/nonexistent.p8"])) { error in
            XCTAssertTrue("\(error)".contains("key id of 10 characters"), "\(error)")
        }
        XCTAssertThrowsError(try ProviderTokenCommand.token(["--key", "ABCDE12345=/nonexistent.p8"])) { error in
            XCTAssertTrue("\(error)".contains("a readable ES256 private key"), "\(error)")
        }
        XCTAssertEqual(Command.run(["provider-token", "--key", "nokeyid"]), .invalidInput)
    }

    func testARefusedDeviceTokenIsExplainedInTheWordsOfTheDevices() {
        let facts = { (sip: Bool) in
            FirstContact.Facts(counters: ["gateway.pushes.sent": 3, "devices.registered": 2], gatewayURL: "http://g",
                               caPath: nil, rejected: ["BadDeviceToken": 3], ownServer: false, sipDevices: sip)
        }
        let sip = FirstContact.diagnose(facts(true)).joined()
        XCTAssertTrue(sip.contains("pn-prid"), sip)
        XCTAssertFalse(sip.contains("${device.token}"), sip)
        let http = FirstContact.diagnose(facts(false)).joined()
        XCTAssertTrue(http.contains("${device.token}"), http)
    }
}
