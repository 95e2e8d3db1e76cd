import SIP
import XCTest

final class ParserTests: XCTestCase {
    static let invite = "INVITE sip:bob@127.0.0.1:5070 SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKproxy, SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa\r\n"
        + "Max-Forwards: 69\r\nf: \"Alice\" <sip:alice@127.0.0.1>;tag=9fx\r\nTo: <sip:bob@127.0.0.1>\r\n"
        + "i: call-1@127.0.0.1\r\nCSeq: 7 INVITE\r\nContact: <sip:alice@127.0.0.1:5080>\r\n"
        + "Subject: folded\r\n  line\r\nContent-Type: application/sdp\r\nContent-Length: 4\r\n\r\nv=0\r\n"

    func testDatagramRequestExposesHeadersThroughCompactAndFullNames() throws {
        let message = try SIPParser.parse(datagram: Array(Self.invite.utf8))
        XCTAssertEqual(message.method, .invite)
        XCTAssertEqual(message.requestURI, "sip:bob@127.0.0.1:5070")
        XCTAssertEqual(message.callID, "call-1@127.0.0.1")
        XCTAssertEqual(message.from?.tag, "9fx")
        XCTAssertEqual(message.from?.displayName, "Alice")
        XCTAssertEqual(message.branch, "z9hG4bKproxy")
        XCTAssertEqual(message.cseq, SIPCSeq(7, .invite))
        XCTAssertEqual(message.header(SIPHeaderName("Subject")), "folded line")
        XCTAssertEqual(message.body, Array("v=0\r".utf8), "Content-Length frames the body; the rest is dropped")
        XCTAssertNoThrow(try SIPParser.validate(message))
    }

    func testParameterLookupAgreesWithTheFullParseAndIgnoresURIParameters() throws {
        let message = try SIPParser.parse(datagram: Array(Self.invite.utf8))
        XCTAssertEqual(message.branch, message.via?.branch)
        XCTAssertNil(message.toTag)
        let to = "\"B\" <sip:b@h;tag=uri-param>;x=1;tag=abc"
        XCTAssertEqual(SIPAddress.tag(in: to), "abc")
        XCTAssertEqual(SIPAddress.tag(in: to), SIPAddress(to)?.tag)
        XCTAssertNil(SIPParameters.lookup("rport", in: ";branch=z9hG4bK1;rport"), "a flag")
        XCTAssertEqual(SIPVia.branch(in: "SIP/2.0/UDP h;branch=z9hG4bK1;rport"), "z9hG4bK1")
        XCTAssertNil(SIPVia.branch(in: "SIP/2.0/UDP;branch=x"), "no sent-by: no Via, no branch")
    }

    /// The byte-level readers (branch, tag, CSeq, the first of a comma-joined value) on values that trip them.
    func testHeaderValueReadersHandleQuotesCommasTabsAndCase() {
        let via = "sip/2.0/tcp  h:5060 ; Branch = z9hG4bKa ;rport, SIP/2.0/UDP p;branch=z9hG4bKb"
        XCTAssertEqual(SIPVia.branch(in: via), "z9hG4bKa")
        XCTAssertEqual(SIPVia(via)?.transport, "TCP")
        XCTAssertEqual(SIPVia(via)?.sentBy, "h:5060")
        XCTAssertNil(SIPVia.branch(in: "SIP/2.0/UDP/X h;branch=z9hG4bK1"), "a slash in the transport")
        XCTAssertNil(SIPVia.branch(in: "SIP/2.1/UDP h;branch=z9hG4bK1"))
        let from = "\"Doe, \\\"J\\\"\" <sip:j@h;tag=u>;tag=t1, <sip:k@h>;tag=t2"
        XCTAssertEqual(SIPAddress.tag(in: from), "t1")
        XCTAssertEqual(SIPAddress(from)?.uri, "sip:j@h;tag=u")
        XCTAssertEqual(SIPAddress("sip:a@h;tag=x")?.tag, "x", "addr-spec: the parameters are the header's")
        XCTAssertNil(SIPAddress("<noscheme>"), "a URI without a colon")
        XCTAssertEqual(SIPCSeq(" 12   INVITE\t"), SIPCSeq(12, .invite))
        XCTAssertNil(SIPCSeq("12\tINVITE"), "only spaces separate")
        XCTAssertNil(SIPCSeq("12345678901 BYE"), "more than ten digits")
        XCTAssertNil(SIPCSeq("1 BYE x"))
        XCTAssertEqual(SIPHeaderValues.first("<sip:a,b@h>, <sip:c@h>"), "<sip:a,b@h>")
        XCTAssertTrue(SIPHeaderName.callID.matches("CALL-id"))
        XCTAssertTrue(SIPHeaderName.callID.matches("I"))
        XCTAssertFalse(SIPHeaderName.cseq.matches("C"), "no compact form")
        XCTAssertFalse(SIPHeaderName.via.matches("Vià"))
    }

    func testKeptFieldsAreForgottenWhenTheHeadersChange() throws {
        var message = try SIPParser.parse(datagram: Array(Self.invite.utf8))
        XCTAssertEqual(message.cseq, SIPCSeq(7, .invite))
        message.setHeader(.cseq, "8 BYE")
        message.setHeader(.via, "SIP/2.0/UDP h:1;branch=z9hG4bKnew")
        XCTAssertEqual(message.cseq, SIPCSeq(8, .bye), "read from the new header, not the kept field")
        XCTAssertEqual(message.branch, "z9hG4bKnew")
        message.keepFields()
        XCTAssertEqual(message.cseq, SIPCSeq(8, .bye))
        XCTAssertEqual(message, try SIPParser.parse(datagram: message.serialized()), "kept fields do not count")
    }

    func testKeptFieldsReadAsTheHeaderLookupsDo() throws {
        let names = [("v", "VIA", "Via"), ("t", "tO", "To"), ("I", "CALL-id", "Call-ID"), ("cseq", "CSEQ", "CSeq"),
                     ("F", "from", "From")]
        for form in 0..<3 {
            let headers = names.map { n -> SIPHeader in
                let name = [n.0, n.1, n.2][form]
                switch n.2 {
                case "Via": return SIPHeader(name, "SIP/2.0/UDP h:1;branch=z9hG4bK\(form)")
                case "To": return SIPHeader(name, "<sip:b@h>;tag=t\(form)")
                case "Call-ID": return SIPHeader(name, "c\(form)@h")
                case "CSeq": return SIPHeader(name, "\(form + 1) INVITE")
                default: return SIPHeader(name, "<sip:a@h>;tag=f")
                }
            } + [SIPHeader("Vià", "x"), SIPHeader("Contact", "<sip:a@h>"), SIPHeader("m", "<sip:a@h>")]
            let built = SIPMessage.request(.invite, uri: "sip:b@h", headers: headers)
            var kept = built
            kept.keepFields()
            XCTAssertEqual(kept.callID, built.callID)
            XCTAssertEqual(kept.cseq, built.cseq)
            XCTAssertEqual(kept.branch, built.branch)
            XCTAssertEqual(kept.toTag, built.toTag)
            XCTAssertEqual(kept.callID, "c\(form)@h")
            XCTAssertNoThrow(try SIPParser.validate(kept))
        }
    }

    func testPlainCSeqAndByteParametersReadAsTheGeneralForms() {
        XCTAssertEqual(SIPCSeq("4294967295 BYE"), SIPCSeq(4_294_967_295, .bye))
        XCTAssertNil(SIPCSeq("4294967296 BYE"), "above UInt32")
        XCTAssertEqual(SIPCSeq("007 ACK"), SIPCSeq(7, .ack))
        XCTAssertEqual(SIPCSeq("+7 ACK"), SIPCSeq(7, .ack), "the general reading takes a sign, as UInt32 does")
        XCTAssertNil(SIPCSeq("7 "))
        let address = SIPAddress("<sip:a@h> ; tag = t1 ;lr; expires=60;")
        XCTAssertEqual(address?.parameters, SIPParameters(parsing: " ; tag = t1 ;lr; expires=60;"))
        XCTAssertEqual(address?.text, "<sip:a@h>;tag=t1;lr;expires=60")
        XCTAssertEqual(SIPVia("SIP/2.0/udp h:5;branch=z9hG4bK1;rport")?.text, "SIP/2.0/UDP h:5;branch=z9hG4bK1;rport")
    }

    func testSerializedMessageParsesBackToTheSameMessage() throws {
        let message = try SIPParser.parse(datagram: Array(Self.invite.utf8))
        let again = try SIPParser.parse(datagram: message.serialized())
        XCTAssertEqual(again.startLine, message.startLine)
        XCTAssertEqual(again.body, message.body)
        XCTAssertEqual(again.headers.filter { $0.name != "Content-Length" }.count,
                       message.headers.filter { $0.name != "Content-Length" }.count)
    }

    func testStreamParserFramesMessagesArrivingByteByByteAndSkipsKeepAlives() throws {
        var parser = SIPStreamParser()
        let bytes = Array(("\r\n\r\n" + Self.invite.replacingOccurrences(of: "v=0\r\n", with: "v=0\r")
            + Self.invite.replacingOccurrences(of: "v=0\r\n", with: "v=0\r")).utf8)
        var messages: [SIPMessage] = []
        for byte in bytes {
            parser.append([byte])
            while let message = try parser.next() { messages.append(message) }
        }
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages.last?.body, Array("v=0\r".utf8))
        XCTAssertEqual(parser.bufferedBytes, 0)
    }

    func testStreamMessageWithoutContentLengthBreaksTheStream() {
        var parser = SIPStreamParser()
        parser.append(Array("OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n\r\n".utf8))
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? SIPParseError, .missingContentLength) }
        XCTAssertNotNil(parser.isBroken)
    }

    func testOversizeHeadIsRefusedBeforeItsEnd() {
        var parser = SIPStreamParser(maxHeadBytes: 100)
        parser.append(Array(("OPTIONS sip:a@b SIP/2.0\r\nX: " + String(repeating: "a", count: 200)).utf8))
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? SIPParseError, .headTooLarge(limit: 100)) }
    }

    func testEachMalformationHasItsKind() {
        let cases: [(String, String)] = [
            ("INVITE sip:a@b SIP/2.0\r\nVia: x\r\n", "truncated_head"),
            ("HELLO\r\n\r\n", "bad_start_line"),
            ("INVITE sip:a@b SIP/3.0\r\n\r\n", "bad_version"),
            ("SIP/2.0 99 Odd\r\n\r\n", "bad_status"),
            ("INVITE sip:a@b SIP/2.0\r\nno colon here\r\n\r\n", "bad_header"),
            ("INVITE sip:a@b SIP/2.0\r\nContent-Length: x\r\n\r\n", "bad_content_length"),
            ("INVITE sip:a@b SIP/2.0\r\nContent-Length: 10\r\n\r\nabc", "truncated_body"),
            ("INVITE sip:a@b SIP/2.0\r\nContent-Length: 3\r\nl: 4\r\n\r\nabcd", "bad_content_length"),
            ("INVITE sip:a@b SIP/2.0\r\nBad Name: x\r\n\r\n", "bad_header"),
            ("INVITE sip:a@b SIP/2.0\r\n: x\r\n\r\n", "bad_header"),
            ("INVITE sip:a@b SIP/2.0\r\nNa(me: x\r\n\r\n", "bad_header"),
            ("INVITE sip:a@b SIP/2.0\r\nVia x\r\n\r\n", "bad_header"),
            ("INVITE sip:a@b SIP/2.1\r\n\r\n", "bad_version"),
            ("INVITE sip:a@b sip/2.0\r\n\r\n", "bad_start_line"),
        ]
        for (text, kind) in cases {
            XCTAssertThrowsError(try SIPParser.parse(datagram: Array(text.utf8)), text) {
                XCTAssertEqual(($0 as? SIPParseError)?.kind, kind, text)
            }
        }
    }

    func testValidationNamesTheMissingHeaderAndAMismatchedCSeq() throws {
        let noCallID = try SIPParser.parse(datagram: Array(Self.invite.replacingOccurrences(
            of: "i: call-1@127.0.0.1\r\n", with: "").utf8))
        XCTAssertThrowsError(try SIPParser.validate(noCallID)) {
            XCTAssertEqual($0 as? SIPParseError, .missingHeader("Call-ID"))
        }
        let wrong = try SIPParser.parse(datagram: Array(Self.invite.replacingOccurrences(
            of: "7 INVITE", with: "7 BYE").utf8))
        XCTAssertThrowsError(try SIPParser.validate(wrong)) { XCTAssertEqual($0 as? SIPParseError, .badCSeq) }
    }

    /// A name with spaces before its colon is read trimmed; a compact Content-Length counts as the full one.
    func testHeaderNameSpacesAndCompactContentLengthReadAsTheFullForms() throws {
        let text = "BYE sip:a@b SIP/2.0\r\nVia \t: SIP/2.0/UDP h;branch=z9hG4bKq\r\nl: 2\r\n\r\nabc"
        let message = try SIPParser.parse(datagram: Array(text.utf8))
        XCTAssertEqual(message.branch, "z9hG4bKq")
        XCTAssertEqual(message.body, Array("ab".utf8))
    }

    /// The response's lines come in §8.2.6's order and under their full names whatever order and form the
    /// request's came in: every Via, then the first From, To, Call-ID and CSeq.
    func testResponseWritesItsLinesInOrderUnderFullNames() throws {
        let text = "OPTIONS sip:a@b SIP/2.0\r\nCSeq: 2 OPTIONS\r\ni: c9\r\nt: <sip:a@b>\r\n"
            + "v: SIP/2.0/UDP h1;branch=z9hG4bK1\r\nf: <sip:c@d>;tag=f1\r\n"
            + "VIA: SIP/2.0/UDP h2;branch=z9hG4bK2\r\nFrom: <sip:e@f>;tag=f2\r\n\r\n"
        let response = try SIPParser.parse(datagram: Array(text.utf8)).response(200, toTag: "t1")
        XCTAssertEqual(String(decoding: response.serialized(), as: UTF8.self),
                       "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP h1;branch=z9hG4bK1\r\n"
                       + "Via: SIP/2.0/UDP h2;branch=z9hG4bK2\r\nFrom: <sip:c@d>;tag=f1\r\nTo: <sip:a@b>;tag=t1\r\n"
                       + "Call-ID: c9\r\nCSeq: 2 OPTIONS\r\nContent-Length: 0\r\n\r\n")
        XCTAssertEqual(response.toTag, "t1")
        XCTAssertEqual(response.fromTag, "f1")
        XCTAssertEqual(response.branch, "z9hG4bK1")
    }

    func testResponseToARequestCopiesViasAndAddsTheToTag() throws {
        let request = try SIPParser.parse(datagram: Array(Self.invite.utf8))
        let response = request.response(180, toTag: "xyz")
        XCTAssertEqual(response.status, 180)
        XCTAssertEqual(response.headers(.via).count, 1, "the comma-joined Via line is copied as it came")
        XCTAssertEqual(response.to?.tag, "xyz")
        XCTAssertEqual(response.cseq, SIPCSeq(7, .invite))
        XCTAssertNoThrow(try SIPParser.validate(SIPParser.parse(datagram: response.serialized())))
    }
}
