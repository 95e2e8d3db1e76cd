import Foundation
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

    /// The 64 steps written out (`MD5.compress`) against the table-driven loop they replaced, RFC 1321 section 3.4
    /// as written, on every length up to five blocks and bytes of every value.
    func testMD5MatchesTheTableDrivenReferenceAtEveryLength() {
        var seed: UInt32 = 0x1234_5678
        for length in 0...320 {
            let message = (0..<length).map { _ -> UInt8 in
                seed = seed &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: seed >> 24)
            }
            XCTAssertEqual(MD5.digest(message), Self.referenceMD5(message), "\(length) bytes")
        }
    }

    /// RFC 1321's MD5 with its per-step tables and a switch, as MD5.swift computed it until 2026-12-07.
    static func referenceMD5(_ message: [UInt8]) -> [UInt8] {
        let s: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
        let k = (0..<64).map { UInt32(truncatingIfNeeded: Int64((abs(sin(Double($0 + 1))) * 4_294_967_296.0)
                                                                .rounded(.down))) }
        var padded = message + [0x80] + [UInt8](repeating: 0, count: (55 - message.count % 64 + 64) % 64)
        for i in 0..<8 { padded.append(UInt8(truncatingIfNeeded: (UInt64(message.count) &* 8) >> (8 * UInt64(i)))) }
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        for block in stride(from: 0, to: padded.count, by: 64) {
            let m = (0..<16).map { w in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(padded[block + 4 * w + $1]) << (8 * $1) }
            }
            var (a, b, c, d) = (h[0], h[1], h[2], h[3])
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) & 15
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) & 15
                default: f = c ^ (b | ~d); g = (7 * i) & 15
                }
                f = f &+ a &+ k[i] &+ m[g]
                let shift = s[(i / 16) * 4 + i % 4]
                (a, d, c) = (d, c, b)
                b = b &+ (f << shift | f >> (32 - shift))
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d]
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
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
