import SIP
import XCTest

final class DigestTests: XCTestCase {
    func testMD5MatchesRFC1321TestSuite() {
        XCTAssertEqual(MD5.hex(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(MD5.hex("abc"), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(MD5.hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0")
        XCTAssertEqual(MD5.hex(String(repeating: "1234567890", count: 8)), "57edf4a22be3c955ac49da2e2107b67a")
    }

    /// Lengths either side of each padding boundary: the length must fit after 0x80 in the last block (55) or
    /// spill into one more (56 to 63), and whole blocks come before the tail (64 and up).
    func testMD5PadsAtEveryBlockBoundaryAsReferenceDoes() {
        let expected: [(Int, String)] = [
            (55, "ef1772b6dff9a122358552954ad0df65"), (56, "3b0c8ac703f828b04c6c197006d17218"),
            (63, "b06521f39153d618550606be297466d5"), (64, "014842d480b571495a4a0363793f7367"),
            (65, "c743a45e0d2e6a95cb859adae0248435"), (119, "8a7bd0732ed6a28ce75f6dabc90e1613"),
            (120, "5f61c0ccad4cac44c75ff505e1f1e537"), (128, "e510683b3f5ffe4093d021808bc6ff70"),
        ]
        for (length, hex) in expected {
            XCTAssertEqual(MD5.hex(String(repeating: "a", count: length)), hex, "\(length) bytes")
        }
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
