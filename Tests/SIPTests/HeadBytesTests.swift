import SIP
import XCTest

/// The header lines kept as bytes (issue 33): what a message built from templates or copied line by line says
/// about itself must be what the same bytes say when parsed, and the byte edits must leave the lines a list edit
/// would.
final class HeadBytesTests: XCTestCase {
    private let local = SIPLocalHeaders(user: "alice", domain: "example.org", transport: "UDP", host: "10.0.0.1",
                                        port: 5070)

    /// The fields a built message carries answer as the parse of its own bytes does.
    private func assertReadsBack(_ built: SIPMessage, file: StaticString = #filePath, line: UInt = #line) throws {
        let parsed = try SIPParser.parse(datagram: built.serialized())
        var lines = parsed
        lines.removeHeaders(.contentLength)  // the serializer's own
        XCTAssertEqual(lines, built, "the bytes parse back into the same message", file: file, line: line)
        XCTAssertEqual(built.callID, parsed.callID, file: file, line: line)
        XCTAssertEqual(built.branch, parsed.branch, file: file, line: line)
        XCTAssertEqual(built.cseq, parsed.cseq, file: file, line: line)
        XCTAssertEqual(built.toTag, parsed.toTag, file: file, line: line)
        XCTAssertEqual(built.fromTag, parsed.fromTag, file: file, line: line)
        XCTAssertNoThrow(try SIPParser.validate(built), file: file, line: line)
    }

    func testAnInviteFromTheTemplateIsTheLinesTheAgentWroteOneByOne() throws {
        let invite = local.invite("sip:bob@example.org", callID: "c1@10.0.0.1", tag: "t1", branch: "z9hG4bKb1",
                                  body: Array("v=0\r\n".utf8))
        var byHand = SIPMessage.request(.invite, uri: "sip:bob@example.org", body: Array("v=0\r\n".utf8))
        byHand.addHeader(.via, local.via(branch: "z9hG4bKb1"))
        byHand.addHeader(.maxForwards, "70")
        byHand.addHeader(.from, local.from(tag: "t1"))
        byHand.addHeader(.to, "<sip:bob@example.org>")
        byHand.addHeader(.callID, "c1@10.0.0.1")
        byHand.addHeader(.cseq, "1 INVITE")
        byHand.addHeader(.contact, local.contact)
        byHand.addHeader(.contentType, "application/sdp")
        XCTAssertEqual(invite.serialized(), byHand.serialized())
        try assertReadsBack(invite)
        let register = local.register("sip:example.org", callID: "r1", tag: "t2", branch: "z9hG4bKb2", cseq: 7,
                                      expires: 300)
        XCTAssertEqual(register.header(.expires), "300")
        XCTAssertEqual(register.header(.to), "<sip:alice@example.org>")
        try assertReadsBack(register)
    }

    func testDialogRequestsCarryTheFieldsTheirBytesSay() throws {
        var invite = SIPMessage.request(.invite, uri: "sip:bob@example.org")
        invite.addHeader(.via, "SIP/2.0/UDP 10.0.0.2:5060;branch=z9hG4bKx")
        invite.addHeader(.from, "\"Bob Smith\" <sip:bob@example.org>;tag=f1")
        invite.addHeader(.to, "<sip:alice@example.org>")
        invite.addHeader(.callID, "c2")
        invite.addHeader(.cseq, "3 INVITE")
        invite.addHeader(.contact, "<sip:bob@10.0.0.2:5060>")
        invite.addHeader(.recordRoute, "<sip:p1;lr>")
        var dialog = try XCTUnwrap(SIPDialog(uas: invite, localTag: "l1"))
        let bye = dialog.request(.bye, via: local.viaLine, branch: "z9hG4bKb3", contact: nil)
        XCTAssertEqual(bye.header(.from), "<sip:alice@example.org>;tag=l1")
        XCTAssertEqual(bye.header(.to), "\"Bob Smith\" <sip:bob@example.org>;tag=f1")
        XCTAssertEqual(bye.header(.route), "<sip:p1;lr>")
        try assertReadsBack(bye)
        let reinvite = dialog.request(.invite, via: local.viaLine, branch: "z9hG4bKb4", contact: local.contactLine,
                                      body: [], contentType: "application/sdp")
        XCTAssertEqual(reinvite.headers.last, SIPHeader("Contact", local.contact))
        try assertReadsBack(reinvite)
        try assertReadsBack(dialog.ack(cseq: 3, via: local.viaLine, branch: "z9hG4bKb5"))
        dialog.callID = "c<2>"  // a Call-ID not plain enough to vouch for: the request is read instead
        try assertReadsBack(dialog.request(.bye, via: local.viaLine, branch: "z9hG4bKb6", contact: nil))
    }

    func testAResponseAddsItsTagToTheToBytesAsTheAddressWouldWriteIt() throws {
        let cases: [(to: String, tagged: String)] = [
            ("<sip:a@h>", "<sip:a@h>;tag=r"),
            ("<sip:a@h>;x=1;y", "<sip:a@h>;x=1;y;tag=r"),
            ("\"A\" <sip:a@h>", "\"A\" <sip:a@h>;tag=r"),
            ("A <sip:a@h>", "\"A\" <sip:a@h>;tag=r"),
            ("<sip:a@h> ; x=1", "<sip:a@h>;x=1;tag=r"),
            ("<sip:a@h>;x=1;", "<sip:a@h>;x=1;tag=r"),
            ("sip:a@h;x=1", "<sip:a@h>;x=1;tag=r"),
            ("<sip:a@h>;tag=old", "<sip:a@h>;tag=old"),
            ("<sip:a@h>;TAG", "<sip:a@h>;TAG=r"),
            ("nonsense", "nonsense"),
        ]
        for (to, tagged) in cases {
            var request = SIPMessage.request(.invite, uri: "sip:a@h")
            request.addHeader(.via, "SIP/2.0/UDP h;branch=z9hG4bKq")
            request.addHeader(.from, "<sip:b@h>;tag=f")
            request.addHeader(.to, to)
            request.addHeader(.callID, "c")
            request.addHeader(.cseq, "1 INVITE")
            let parsed = try SIPParser.parse(datagram: request.serialized())
            let response = parsed.response(180, toTag: "r")
            XCTAssertEqual(response.header(.to), tagged, to)
            try assertReadsBack(response)
        }
    }

    func testByteEditsLeaveTheLinesAListEditWould() throws {
        let text = "OPTIONS sip:a@h SIP/2.0\r\nv: SIP/2.0/UDP h;branch=z9hG4bK1\r\nRoute: <sip:r1>\r\n"
            + "X-Folded: one\r\n  two\r\nf: <sip:b@h>;tag=f\r\nt: <sip:a@h>\r\ni: c\r\nCSeq: 1 OPTIONS\r\n"
            + "Route: <sip:r2>\r\nl: 0\r\n\r\n"
        var message = try SIPParser.parse(datagram: Array(text.utf8))
        var list = message.headers
        XCTAssertEqual(list[2], SIPHeader("X-Folded", "one two"))
        message.insertHeader("Via", "SIP/2.0/UDP p;branch=z9hG4bK2", at: 0)
        list.insert(SIPHeader("Via", "SIP/2.0/UDP p;branch=z9hG4bK2"), at: 0)
        XCTAssertEqual(message.headers, list)
        XCTAssertEqual(message.branch, "z9hG4bK2", "the fields follow the new top Via")
        message.removeHeaders(.route)
        list.removeAll { SIPHeaderName.route.matches($0.name) }
        XCTAssertEqual(message.headers, list)
        message.removeHeader(at: 0)
        list.remove(at: 0)
        XCTAssertEqual(message.headers, list)
        message.setHeader(.cseq, "2 OPTIONS")
        list[list.firstIndex { $0.name == "CSeq" }!] = SIPHeader("CSeq", "2 OPTIONS")
        XCTAssertEqual(message.headers, list)
        XCTAssertEqual(message.cseq, SIPCSeq(2, .options))
        XCTAssertEqual(message, SIPMessage(startLine: message.startLine, headers: list))
        let wire = String(decoding: message.serialized(), as: UTF8.self)
        XCTAssertTrue(wire.hasSuffix("i: c\r\nCSeq: 2 OPTIONS\r\nContent-Length: 0\r\n\r\n"), wire)
    }

    func testAResponseCopiesEveryViaInOrderWhereverTheyStandAndKeepsItsRequestsFieldsApart() throws {
        let text = "INVITE sip:a@h SIP/2.0\r\nv: SIP/2.0/UDP p1;branch=z9hG4bK1\r\nRecord-Route: <sip:p1;lr>\r\n"
            + "VIA:   SIP/2.0/UDP h;branch=z9hG4bK2\r\nf: <sip:b@h>;tag=f\r\nt: <sip:a@h>\r\ni: c\r\n"
            + "CSeq: 1 INVITE\r\nVia: SIP/2.0/UDP h2;branch=z9hG4bK3\r\nl: 0\r\n\r\n"
        let request = try SIPParser.parse(datagram: Array(text.utf8))
        let response = request.response(200, toTag: "r")
        XCTAssertEqual(response.headers, [
            SIPHeader("Via", "SIP/2.0/UDP p1;branch=z9hG4bK1"), SIPHeader("Via", "SIP/2.0/UDP h;branch=z9hG4bK2"),
            SIPHeader("Via", "SIP/2.0/UDP h2;branch=z9hG4bK3"), SIPHeader("From", "<sip:b@h>;tag=f"),
            SIPHeader("To", "<sip:a@h>;tag=r"), SIPHeader("Call-ID", "c"), SIPHeader("CSeq", "1 INVITE"),
        ])
        try assertReadsBack(response)
        XCTAssertNil(request.toTag, "the response's tag is its own: the request's fields are not shared by change")
        XCTAssertEqual(request.response(100).toTag, nil)
    }
}
