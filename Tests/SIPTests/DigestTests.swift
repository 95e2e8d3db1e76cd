import SIP
import XCTest

final class DigestTests: XCTestCase {
    func testMD5MatchesRFC1321TestSuite() {
        XCTAssertEqual(MD5.hex(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(MD5.hex("abc"), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(MD5.hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0")
        XCTAssertEqual(MD5.hex(String(repeating: "1234567890", count: 8)), "57edf4a22be3c955ac49da2e2107b67a")
    }

    func testDigestResponseMatchesRFC2617Example() throws {
        let challenge = try XCTUnwrap(DigestChallenge(
            "Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", "
                + "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""))
        XCTAssertEqual(challenge.qop, "auth")
        let credentials = DigestCredentials(username: "Mufasa", password: "Circle Of Life")
        XCTAssertEqual(credentials.response(to: challenge, method: "GET", uri: "/dir/index.html", nonceCount: 1,
                                            cnonce: "0a4f113b"), "6629fae49393a05397450978507c4ef1")
        let header = credentials.authorization(for: challenge, method: SIPMethod("GET"), uri: "/dir/index.html",
                                               nonceCount: 1, cnonce: "0a4f113b")
        XCTAssertTrue(header.contains("nc=00000001"), header)
        XCTAssertTrue(header.contains("opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""), header)
    }

    func testChallengeWithoutNonceOrWithAnotherSchemeIsRefused() {
        XCTAssertNil(DigestChallenge("Digest realm=\"x\""))
        XCTAssertNil(DigestChallenge("Basic realm=\"x\""))
        XCTAssertEqual(DigestChallenge("Digest realm=\"x\", nonce=\"n\", algorithm=SHA-256")?.isSupported, false)
    }
}
