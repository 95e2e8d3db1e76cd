@testable import SIP
import XCTest

/// `SIPLocalHeaders` lays its templates out as bytes (issue 33, round three): each must be the one the `String`
/// concatenations and template interpolation it replaced made, kept here as the reference.
final class LocalHeadersLayoutTests: XCTestCase {
    private struct Case {
        var user = "dev-12", domain = "example.org", transport = "UDP", host = "127.0.0.1", port = 5060
        var parameters = SIPParameters(), uriTransport: String?, sentByHost: String?, binding = ""
    }

    private let cases: [Case] = [
        Case(),
        Case(transport: "TCP", port: 40123, parameters: SIPParameters([("pn-provider", "fcm"), ("ob", nil)])),
        Case(user: "a b", domain: "x;y", transport: "WSS", port: 443, uriTransport: "ws", sentByHost: "d1x.invalid",
             binding: ";+sip.instance=\"<urn:uuid:1>\";reg-id=1"),
        Case(user: "ü", transport: "TLS", host: "::1", port: 0, parameters: SIPParameters([("k", "v=w")])),
    ]

    private func make(_ c: Case) -> SIPLocalHeaders {
        SIPLocalHeaders(user: c.user, domain: c.domain, transport: c.transport, host: c.host, port: c.port,
                        contactParameters: c.parameters, uriTransport: c.uriTransport, sentByHost: c.sentByHost,
                        bindingParameters: c.binding)
    }

    /// The read-back probe as `SIPLocalHeaders` makes it: a REGISTER from the head, its fields read back.
    private func probe(_ head: SIPHeaderTemplate, domain: String) -> Bool {
        var probe = SIPMessage.request(.register, uri: "sip:" + domain)
        probe.appendLines { head.write(["z9hG4bKb", "t", "c", "1", "60"], into: &$0) }
        probe.keepFields()
        return probe.branch == "z9hG4bKb" && probe.fromTag == "t" && probe.toTag == nil
    }

    func testEveryTemplateIsTheOneTheStringsAndInterpolationsMade() {
        for c in cases {
            let local = make(c)
            let sentBy = (c.sentByHost ?? c.host) + ":" + String(c.port)
            let prefix = "sip:" + c.user + "@" + sentBy
            let uri = prefix + ";transport=" + (c.uriTransport ?? c.transport.lowercased()) + c.parameters.text
            let contact = SIPAddress(uri: uri).text
            let aor = SIPAddress(uri: "sip:" + c.user + "@" + c.domain).text
            XCTAssertEqual(local.contactPrefix, prefix)
            XCTAssertEqual(local.contact, contact)
            XCTAssertEqual(local.addressOfRecord, aor)
            XCTAssertEqual(local.via, SIPVia.template(transport: c.transport, sentBy: sentBy))
            XCTAssertEqual(local.from, "\(aor);tag=\(.slot)")
            XCTAssertEqual(local.viaLine, "Via: SIP/2.0/\(c.transport) \(sentBy);branch=\(.slot);rport\r\n")
            XCTAssertEqual(local.contactLine, Array("Contact: \(contact)\r\n".utf8))
            let invite: SIPHeaderTemplate = """
                Via: SIP/2.0/\(c.transport) \(sentBy);branch=\(.slot);rport\r
                Max-Forwards: 70\r
                From: \(aor);tag=\(.slot)\r
                To: <\(.slot)>\r
                Call-ID: \(.slot)\r
                CSeq: 1 INVITE\r
                Contact: \(contact)\r
                Content-Type: application/sdp\r

                """
            let register: SIPHeaderTemplate = """
                Via: SIP/2.0/\(c.transport) \(sentBy);branch=\(.slot);rport\r
                Max-Forwards: 70\r
                From: \(aor);tag=\(.slot)\r
                To: \(aor)\r
                Call-ID: \(.slot)\r
                CSeq: \(.slot) REGISTER\r
                Contact: \(contact)\(c.binding)\r
                Expires: \(.slot)\r

                """
            XCTAssertEqual(local.inviteHead, invite)
            XCTAssertEqual(local.registerHead, register)
            XCTAssertEqual(local.headsReadBack, SIPLocalHeaders.plain([c.user, c.domain, c.transport,
                                                                        c.sentByHost ?? c.host])
                           || probe(register, domain: c.domain),
                           "\(c.user) \(c.domain)")
        }
    }

    /// A reopened agent's headers are its old ones moved to the new port (`moved(toPort:)`): each must be what a
    /// new set laid out at that port is, whether the port grows, shrinks or keeps its number of digits, and again
    /// after a second move (the digits' places moved with the first).
    func testHeadersMovedToAPortAreTheOnesLaidOutThere() {
        let ports = [0, 7, 5060, 40123, 65535, 9]
        for c in cases {
            for from in ports {
                var at = c
                at.port = from
                var local = make(at)
                for to in ports.reversed() {
                    at.port = to
                    local = local.moved(toPort: to)
                    XCTAssertEqual(local, make(at), "\(c.transport) \(from) -> \(to)")
                    XCTAssertEqual(local.port, to)
                }
            }
        }
    }

    /// `move(toPort:)`, in place when the set holds its pieces alone and the digits' count stays (40123 -> 50999
    /// -> 40000), anew otherwise: the set laid out at the new port each time, alone or with a copy taken before
    /// each move, and that copy still the old port's (it shares the pieces: the move must not write over them).
    func testHeadersMovedInPlaceAreTheOnesLaidOutThereAndACopyKeepsItsPort() {
        let ports = [40123, 50999, 40000, 7, 65535, 5060, 9, 8]
        for c in cases {
            for keepingCopies in [false, true] {
                var at = c
                at.port = ports[0]
                var local = make(at)
                for to in ports.dropFirst() {
                    let before = keepingCopies ? local : nil
                    let beforeLaidOut = make(at)
                    at.port = to
                    local.move(toPort: to)
                    XCTAssertEqual(local, make(at), "\(c.transport) -> \(to), copies \(keepingCopies)")
                    XCTAssertEqual(local.port, to)
                    if let before { XCTAssertEqual(before, beforeLaidOut, "the copy before the move to \(to)") }
                }
                local.move(toPort: local.port)
                XCTAssertEqual(local, make(at))
            }
        }
    }

    /// The same port gives the same set back; another port does not.
    func testHeadersMovedToTheirOwnPortAreUnchanged() {
        let local = make(cases[0])
        let moved = local.moved(toPort: cases[0].port)
        XCTAssertEqual(moved, local)
        XCTAssertNotEqual(local.moved(toPort: cases[0].port + 1), local)
    }
}
