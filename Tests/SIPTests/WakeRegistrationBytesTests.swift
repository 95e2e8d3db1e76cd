@testable import SIP
import XCTest

/// The registration a sleeping device makes on every wake, read and written over bytes (issue 33): each reader
/// and writer must give what the `String` code it replaced gave, kept here as the reference.
final class WakeRegistrationBytesTests: XCTestCase {
    /// The challenge reader before: every `name=value` into a dictionary, names lowercased, the last one counting.
    private func referenceFields(_ value: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in SIPHeaderValues.split(String(value.dropFirst(7))) {
            let piece = part.trimmingSpaces
            guard let eq = piece.utf8.firstIndex(of: 0x3D) else { continue }
            out[String(piece[..<eq].trimmingSpaces).lowercased()] =
                String(piece[piece.utf8.index(after: eq)...].trimmingSpaces.trimmingQuotes)
        }
        return out
    }

    func testAChallengeIsReadIntoTheFieldsTheDictionaryOfAllItsParametersGave() throws {
        let values = [
            "Digest realm=\"a.example\", nonce=\"n1\", qop=\"auth\", opaque=\"o\", algorithm=MD5",
            "Digest Realm=a.example,NONCE=\"n,2\" ,  qop=\"auth-int, auth\", stale=TRUE",
            "Digest nonce=\"old\", realm=\"r\", nonce=\"new\", qop=auth-int, algorithm=md5",
            "Digest realm=\"\", nonce=\"\", junk, =x, stale=\"false\"",
        ]
        for value in values {
            let challenge = try XCTUnwrap(DigestChallenge(value), value)
            let fields = referenceFields(value)
            XCTAssertEqual(challenge.realm, fields["realm"], value)
            XCTAssertEqual(challenge.nonce, fields["nonce"], value)
            XCTAssertEqual(challenge.opaque, fields["opaque"], value)
            XCTAssertEqual(challenge.algorithm, fields["algorithm"] ?? "MD5", value)
            XCTAssertEqual(challenge.stale, fields["stale"]?.lowercased() == "true", value)
            let offersAuth = fields["qop"]?.split(separator: ",").contains {
                $0.trimmingSpaces.lowercased() == "auth"
            } ?? false
            XCTAssertEqual(challenge.qop, offersAuth ? "auth" : nil, value)
        }
        XCTAssertEqual(DigestChallenge("Digest realm=\"r\", nonce=\"new\", nonce=\"newer\"")?.nonce, "newer")
        XCTAssertNil(DigestChallenge("Digest  "))
        XCTAssertNil(DigestChallenge("Digestrealm=\"r\", nonce=\"n\""))
    }

    func testTheAuthorizationIsTheOneTheStringsAndThreeHexDigestsMade() throws {
        let withQop = try XCTUnwrap(DigestChallenge("Digest realm=\"r\", nonce=\"abc\", qop=\"auth\", opaque=\"op\""))
        let without = try XCTUnwrap(DigestChallenge("Digest realm=\"r\", nonce=\"abc\""))
        let credentials = DigestCredentials(username: "dev-1", password: "secret")
        for (challenge, count) in [(withQop, UInt32(0x1a2b)), (without, UInt32(1))] {
            let ha1 = MD5.hex("dev-1:r:secret"), ha2 = MD5.hex("REGISTER:sip:example.org")
            let nc = String(repeating: "0", count: 8 - String(count, radix: 16).count) + String(count, radix: 16)
            let response = challenge.qop == nil ? MD5.hex("\(ha1):abc:\(ha2)")
                : MD5.hex("\(ha1):abc:\(nc):cn:auth:\(ha2)")
            var expected = "Digest username=\"dev-1\", realm=\"r\", nonce=\"abc\", uri=\"sip:example.org\", "
                + "response=\"\(response)\", algorithm=MD5"
            if challenge.qop != nil { expected += ", qop=auth, nc=\(nc), cnonce=\"cn\"" }
            if let opaque = challenge.opaque { expected += ", opaque=\"\(opaque)\"" }
            XCTAssertEqual(credentials.authorization(for: challenge, method: .register, uri: "sip:example.org",
                                                     nonceCount: count, cnonce: "cn"), expected)
            XCTAssertEqual(DigestCredentials.nc(count), nc)
        }
    }

    func testTheRegisterHeadCarriesTheBindingAsTheContactLineReplacedAfterwardsDid() {
        let binding = ";+sip.instance=\"<urn:uuid:1>\";reg-id=1"
        let plain = SIPLocalHeaders(user: "dev-1", domain: "example.org", transport: "TCP", host: "10.0.0.1",
                                    port: 5070)
        let bound = SIPLocalHeaders(user: "dev-1", domain: "example.org", transport: "TCP", host: "10.0.0.1",
                                    port: 5070, bindingParameters: binding)
        var before = plain.register("sip:example.org", callID: "c", tag: "t", branch: "z9hG4bKb", cseq: 2,
                                    expires: 600)
        before.setHeader(.contact, plain.contact + binding)
        let now = bound.register("sip:example.org", callID: "c", tag: "t", branch: "z9hG4bKb", cseq: 2, expires: 600)
        XCTAssertEqual(now.serialized(), before.serialized())
        XCTAssertEqual(bound.contact, plain.contact, "only the REGISTER's Contact carries the binding")
    }

    func testOnlyPlainNamesSkipTheReadBackProbe() throws {
        XCTAssertTrue(SIPLocalHeaders.plain(["dev-12", "example.org", "UDP", "127.0.0.1", "d1x_2.invalid"]))
        for odd in ["", "a b", "a;b", "a>b", "a\"b", "a,b", "a:b", "é"] {
            XCTAssertFalse(SIPLocalHeaders.plain(["dev", odd]), odd)
        }
        let local = SIPLocalHeaders(user: "dev-12", domain: "example.org", transport: "UDP", host: "127.0.0.1",
                                    port: 5070)
        XCTAssertTrue(local.headsReadBack)
        let register = local.register("sip:example.org", callID: "c@h", tag: "t1", branch: "z9hG4bKq", cseq: 3,
                                      expires: 60)
        let parsed = try SIPParser.parse(datagram: register.serialized())
        XCTAssertEqual([register.branch, register.fromTag, register.callID], [parsed.branch, parsed.fromTag,
                                                                             parsed.callID])
        XCTAssertNil(parsed.toTag)
        let odd = SIPLocalHeaders(user: "a>;tag=x", domain: "example.org", transport: "UDP", host: "127.0.0.1",
                                  port: 5070)
        XCTAssertFalse(odd.headsReadBack, "the probe still decides for a name that is not plain")
    }

    func testTheBindingsExpiresIsReadFromItsOwnContactAsTheParsedContactsGaveIt() {
        let local = SIPLocalHeaders(user: "dev-1", domain: "example.org", transport: "UDP", host: "127.0.0.1",
                                    port: 5070)
        let lines: [[String]] = [
            ["<sip:dev-1@127.0.0.1:5071;transport=udp>;expires=30, "
                + "<sip:dev-1@127.0.0.1:5070;transport=udp>;expires=90"],
            ["<sip:other@x>;expires=5", "\"Dev\" <sip:dev-1@127.0.0.1:5070;transport=udp;pn-prid=a>;EXPIRES = 120"],
            ["sip:dev-1@127.0.0.1:5070;expires=45"],
            ["<sip:dev-1@127.0.0.1:5070;transport=udp>;+sip.instance=\"<urn:uuid:1>\""],
            ["<sip:dev-1@127.0.0.1:5070>;expires=abc, <sip:dev-1@127.0.0.1:5070>;expires=9"],
            ["<sip:dev-1@127.0.0.1:5070", "*", "<sip:nobody@h>;expires=1"],
            [],
        ]
        for contacts in lines {
            var ok = SIPMessage.response(200)
            for line in contacts { ok.addHeader(.contact, line) }
            let reference = ok.contacts.first { $0.uri.hasPrefix(local.contactPrefix) }?
                .parameters["expires"].flatMap { Int($0) }
            XCTAssertEqual(local.bindingExpires(in: ok), reference, "\(contacts)")
        }
        var ok = SIPMessage.response(200)
        ok.addHeader(.contact, "<sip:dev-1@127.0.0.1:5070;transport=udp>;expires=77")
        XCTAssertEqual(local.bindingExpires(in: ok), 77)
    }
}
