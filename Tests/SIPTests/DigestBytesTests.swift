@testable import SIP
import XCTest

/// The wake's digest round over bytes (issue 33, stop 52): the challenge read where the 401 holds it, the answer's
/// line written as bytes. Each must give what the `String` path gives (kept beside it as the reference), and the
/// answers must still match the RFCs' examples.
final class DigestBytesTests: XCTestCase {
    /// RFC 7616 §3.9.1, the MD5 example: the response and the header's fields as the RFC prints them.
    func testTheAnswerMatchesRFC7616sMD5Example() throws {
        let challenge = try XCTUnwrap(DigestChallenge(
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=MD5, "
                + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", "
                + "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""))
        let credentials = DigestCredentials(username: "Mufasa", password: "Circle of Life")
        let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        XCTAssertEqual(credentials.response(to: challenge, method: "GET", uri: "/dir/index.html", nonceCount: 1,
                                            cnonce: cnonce), "8ca523f5e9506fed4657c9700eebdbec")
        let line = credentials.authorizationLine(for: challenge, proxy: false, method: SIPMethod("GET"),
                                                 uri: "/dir/index.html", nonceCount: 1, cnonce: cnonce)
        let text = String(decoding: line, as: UTF8.self)
        for field in ["Authorization: Digest username=\"Mufasa\"", "realm=\"http-auth@example.org\"",
                      "uri=\"/dir/index.html\"", "response=\"8ca523f5e9506fed4657c9700eebdbec\"", "qop=auth",
                      "nc=00000001", "cnonce=\"\(cnonce)\"", "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""] {
            XCTAssertTrue(text.contains(field), "\(field) in \(text)")
        }
        XCTAssertTrue(text.hasSuffix("\r\n"), text)
    }

    /// The line `SIPAccount.authorize` appends is `addHeader` of `authorization`'s value, byte for byte, for both
    /// header names, with and without a memo (the memo's second answer reuses HA1 and HA2).
    func testTheAuthorizationLineIsTheHeaderTheValueStringMade() throws {
        let challenges = [
            try XCTUnwrap(DigestChallenge("Digest realm=\"r\", nonce=\"abc\", qop=\"auth\", opaque=\"op\"")),
            try XCTUnwrap(DigestChallenge("Digest realm=\"r\", nonce=\"a-much-longer-nonce-0123456789abcdef\"")),
        ]
        let credentials = DigestCredentials(username: "dév-1", password: "secret")
        let memo = DigestCredentials.Memo()
        for challenge in challenges {
            for proxy in [false, true] {
                for round in 0..<2 {
                    var viaString = SIPMessage.request(.register, uri: "sip:example.org")
                    viaString.addHeader(proxy ? .proxyAuthorization : .authorization, credentials.authorization(
                        for: challenge, method: .register, uri: "sip:example.org", nonceCount: 7, cnonce: "cn"))
                    var viaBytes = SIPMessage.request(.register, uri: "sip:example.org")
                    viaBytes.appendLines(credentials.authorizationLine(
                        for: challenge, proxy: proxy, method: .register, uri: "sip:example.org", nonceCount: 7,
                        cnonce: "cn", memo: round == 0 ? nil : memo))
                    XCTAssertEqual(viaBytes.serialized(), viaString.serialized(), "proxy \(proxy), round \(round)")
                    XCTAssertEqual(viaBytes.header(proxy ? .proxyAuthorization : .authorization),
                                   viaString.header(proxy ? .proxyAuthorization : .authorization))
                }
            }
        }
    }

    /// `SIPMessage.digestChallenge` reads the header's bytes in place: the same challenge as the value's `String`
    /// read, for a 401 and a 407, and none for a challenge this end cannot answer or a message without one.
    func testAResponsesChallengeIsTheOneItsHeaderValueGives() throws {
        let values = [
            "Digest realm=\"a.example\", nonce=\"n1\", qop=\"auth\", opaque=\"o\", algorithm=MD5",
            "Digest Realm=a.example,NONCE=\"n,2\" ,  qop=\"auth-int, auth\", stale=TRUE",
            "Digest nonce=\"old\", realm=\"r\", nonce=\"new\", qop=auth-int, algorithm=md5",
        ]
        for value in values {
            for (status, name) in [(401, "WWW-Authenticate"), (407, "Proxy-Authenticate")] {
                let text = "SIP/2.0 \(status) Unauthorized\r\nVia: SIP/2.0/UDP h:5;branch=z9hG4bK1\r\n"
                    + "From: <sip:a@b>;tag=1\r\nTo: <sip:a@b>;tag=2\r\nCall-ID: c\r\nCSeq: 1 REGISTER\r\n"
                    + "\(name):   \(value)  \r\nContent-Length: 0\r\n\r\n"
                let response = try SIPParser.parse(datagram: Array(text.utf8))
                let read = try XCTUnwrap(response.digestChallenge, value)
                XCTAssertEqual(read.challenge, DigestChallenge(value), value)
                XCTAssertEqual(read.proxy, status == 407)
            }
        }
        let sha = "SIP/2.0 401 Unauthorized\r\nCSeq: 1 REGISTER\r\n"
            + "WWW-Authenticate: Digest realm=\"r\", nonce=\"n\", algorithm=SHA-256\r\nContent-Length: 0\r\n\r\n"
        XCTAssertNil(try SIPParser.parse(datagram: Array(sha.utf8)).digestChallenge)
        let none = "SIP/2.0 401 Unauthorized\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n"
        XCTAssertNil(try SIPParser.parse(datagram: Array(none.utf8)).digestChallenge)
    }

    /// `MD5.appendHex` writes its 32 digits after what `out` holds, as the digest's bytes in lowercase hex.
    func testTheHexDigitsFollowWhatTheBufferHeld() {
        for message in ["", "a", String(repeating: "x", count: 119)] {
            var out: [UInt8] = Array("pre:".utf8)
            MD5.appendHex(of: Array(message.utf8), to: &out)
            let expected = "pre:" + MD5.digest(Array(message.utf8)).map { String(format: "%02x", $0) }.joined()
            XCTAssertEqual(String(decoding: out, as: UTF8.self), expected)
        }
    }
}
