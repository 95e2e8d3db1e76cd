@testable import SIP
import XCTest

/// `SIPParser.quickHead`, the one-pass reading of a usual head (issue 33): a datagram it reads gives the message,
/// fields, Content-Length and body the general loop gives; one it declines goes to that loop, as before.
final class QuickHeadTests: XCTestCase {
    private static let lines = [
        "Record-Route: <sip:127.0.0.1:5060;lr>",
        "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK4a1f.5d2e0c61000000000000000000000000.0",
        "v: SIP/2.0/UDP 127.0.0.1:5080;received=127.0.0.1;rport=5080;branch=z9hG4bK-524287-1---7f1c0d2b",
        "Max-Forwards: 69", "From: \"Alice\" <sip:alice@127.0.0.1>;tag=9fxced76sl", "t: <sip:bob@127.0.0.1>",
        "Call-ID: 3848276298220188511@127.0.0.1", "CSeq: 1 INVITE", "Contact: <sip:alice@127.0.0.1:5080>",
        "Content-Type: application/sdp", "Subject: ", "Content-Length: 5", "l: 5",
    ]

    /// What the general loop reads of `text`, the head without its blank line and the body after it.
    private static func general(_ bytes: [UInt8]) throws -> SIPMessage {
        var blank = -1
        var message = try bytes.withUnsafeBufferPointer { try SIPParser.parseHead($0, blankLine: &blank) }
        let bodyStart = blank + 4
        let length = try SIPParser.contentLength(message) ?? (bytes.count - bodyStart)
        message.body = Array(bytes[bodyStart..<(bodyStart + length)])
        return message
    }

    private func assertSameAsGeneral(_ text: String, quick expected: Bool, file: StaticString = #filePath,
                                     line: UInt = #line) throws {
        let bytes = Array(text.utf8)
        let quick = try bytes.withUnsafeBufferPointer { try SIPParser.quickHead($0, strings: nil) }
        XCTAssertEqual(quick != nil, expected, "read in one pass", file: file, line: line)
        let parsed = try SIPParser.parse(datagram: bytes)
        let general = try Self.general(bytes)
        XCTAssertEqual(parsed, general, file: file, line: line)
        XCTAssertEqual(parsed.headers, general.headers, file: file, line: line)
        XCTAssertEqual(parsed.fields, general.fields, file: file, line: line)
        XCTAssertEqual(parsed.callID, "3848276298220188511@127.0.0.1", file: file, line: line)
        XCTAssertEqual(parsed.branch, "z9hG4bK4a1f.5d2e0c61000000000000000000000000.0", file: file, line: line)
        XCTAssertEqual(parsed.fromTag, "9fxced76sl", file: file, line: line)
        XCTAssertEqual(parsed.body, Array("v=0\r\n".utf8), file: file, line: line)
    }

    func testAUsualHeadIsReadInOnePassAsTheGeneralLoopReadsIt() throws {
        let head = Self.lines.joined(separator: "\r\n")
        try assertSameAsGeneral("INVITE sip:bob@127.0.0.1 SIP/2.0\r\n" + head + "\r\n\r\nv=0\r\nextra", quick: true)
        try assertSameAsGeneral("SIP/2.0 180 Ringing\r\n" + head + "\r\n\r\nv=0\r\n", quick: true)
    }

    func testAnyOtherHeadGoesToTheGeneralLoopAndReadsAsBefore() throws {
        for (k, odd) in ["Subject:  two spaces", "Subject:none", "Subject : x", "Subject: x ", "Subject: x\t",
                         "Subject: a\rb", "Subject: x\r\n continued"].enumerated() {
            var lines = Self.lines
            lines.insert(odd, at: k % lines.count)
            try assertSameAsGeneral("SIP/2.0 200 OK\r\n" + lines.joined(separator: "\r\n") + "\r\n\r\nv=0\r\n",
                                    quick: false)
        }
        let many = Self.lines + Array(repeating: "Subject: x", count: SIPParser.quickLineLimit)
        try assertSameAsGeneral("SIP/2.0 200 OK\r\n" + many.joined(separator: "\r\n") + "\r\n\r\nv=0\r\n", quick: false)
    }

    func testContentLengthLinesThatDisagreeAreStillAnError() {
        let text = "SIP/2.0 200 OK\r\n" + Self.lines.joined(separator: "\r\n") + "\r\nl: 4\r\n\r\nv=0\r\n"
        XCTAssertThrowsError(try SIPParser.parse(datagram: Array(text.utf8))) { error in
            XCTAssertEqual(error as? SIPParseError, .badContentLength)
        }
    }

    func testTheUsualMethodsAndReasonsReadAsTheirNames() throws {
        for method in ["INVITE", "ACK", "BYE", "CANCEL", "REGISTER", "OPTIONS", "INFO", "invite", "INVITEX"] {
            let line = try Array("\(method) sip:b@h SIP/2.0".utf8).withUnsafeBufferPointer {
                try SIPParser.parseStartLine($0)
            }
            XCTAssertEqual(line, .request(method: SIPMethod(method), uri: "sip:b@h"))
        }
        for reason in ["OK", "Ringing", "Okay", "", "Trying more"] {
            let line = try Array("SIP/2.0 200 \(reason)".utf8).withUnsafeBufferPointer {
                try SIPParser.parseStartLine($0)
            }
            XCTAssertEqual(line, .response(status: 200, reason: reason))
        }
    }
}
