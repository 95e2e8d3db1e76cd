import Credentials
import Foundation
import TestSupport
import XCTest

/// The push client certificate `callstorm cert voip` issues: Apple's topics extension round-trips, and the file
/// holds the certificate and its key signed by the local CA.
final class PushClientCertificateTests: XCTestCase {
    func testTopicsExtensionRoundTripsAndRejectsWhatIsNotASequence() {
        let der = PushClientCertificate.topicsDER(PushClientCertificate.topics(bundleID: "com.example.phone"))
        XCTAssertEqual(der.first, 0x30)
        XCTAssertEqual(PushClientCertificate.parseTopics(der), ["com.example.phone", "com.example.phone.voip"])
        let long = String(repeating: "a", count: 300)
        XCTAssertEqual(PushClientCertificate.parseTopics(PushClientCertificate.topicsDER([(long, "app")])), [long])
        XCTAssertNil(PushClientCertificate.parseTopics([0x05, 0x00]))
        XCTAssertNil(PushClientCertificate.parseTopics(Array(der.dropLast())))
        XCTAssertNil(PushClientCertificate.parseTopics([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]))
    }

    func testIssuedFileHoldsACertificateAndKeyThatVerifyAgainstTheLocalCA() throws {
        let dir = TemporaryDirectory.path("cred").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/voip.pem"
        try PushClientCertificate.issue(.init(bundleID: "com.example.phone", environment: .development),
                                        stateDirectory: dir, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("BEGIN CERTIFICATE") && text.contains("BEGIN PRIVATE KEY"))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let verify = Process()
        verify.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        verify.arguments = ["openssl", "verify", "-purpose", "sslclient", "-CAfile", dir + "/tls/ca.pem", path]
        verify.standardOutput = FileHandle.nullDevice
        try verify.run()
        verify.waitUntilExit()
        XCTAssertEqual(verify.terminationStatus, 0)
    }
}
