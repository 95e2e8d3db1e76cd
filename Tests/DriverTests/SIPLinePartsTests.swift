@testable import Driver
import RunFormats
import XCTest

/// The SIP tap's parts of a `sip` line (`SIPLineParts`): a device's middle and a label's end are made once and
/// found again, sent and received ends differ, and a label whose text comes in another `String` still gets the
/// bytes `HistoryText.sipEnd` writes.
final class SIPLinePartsTests: XCTestCase {
    private func text(_ parts: SIPLineParts, _ range: Range<Int>) -> String {
        String(decoding: parts.bytes[range], as: UTF8.self)
    }

    func testEachDevicesMiddleIsMadeOnceAndReadAgain() {
        var parts = SIPLineParts()
        var made = 0
        let first = parts.middle(3) { made += 1; return "dev-3" }
        let again = parts.middle(3) { made += 1; return "other" }
        let other = parts.middle(0) { made += 1; return "dev-0" }
        XCTAssertEqual(made, 2)
        XCTAssertEqual(first, again)
        XCTAssertEqual(text(parts, first), #","type":"sip","device":"dev-3","conversation":"#)
        XCTAssertEqual(text(parts, other), #","type":"sip","device":"dev-0","conversation":"#)
    }

    func testALabelsEndsForSentAndReceivedAreItsOwnAndFoundAgain() throws {
        var parts = SIPLineParts()
        let label = "200 INVITE"
        let sent = try XCTUnwrap(parts.end(label, sent: true))
        let received = try XCTUnwrap(parts.end(label, sent: false))
        XCTAssertEqual(parts.end(label, sent: true), sent)
        XCTAssertEqual(text(parts, sent), #","sent":true,"message":"200 INVITE"}"#)
        XCTAssertEqual(text(parts, received), #","sent":false,"message":"200 INVITE"}"#)
        // The same text made anew, and a long label (not a small string): the bytes are still the label's own.
        let copy = String("200 INVITE".reversed().reversed())
        XCTAssertEqual(parts.end(copy, sent: true).map { text(parts, $0) }, text(parts, sent))
        let long = String(repeating: "long-label-", count: 4)
        let end = try XCTUnwrap(parts.end(long, sent: false))
        XCTAssertEqual(text(parts, end), #","sent":false,"message":"\#(long)"}"#)
    }

    func testPastTheTablesSizeNoEndIsMade() {
        var parts = SIPLineParts()
        for i in 0..<SIPLineParts.maxEnds { XCTAssertNotNil(parts.end("\(i) BYE", sent: true)) }
        XCTAssertNil(parts.end("999 BYE", sent: true))
    }

    /// An end by number is made once per number and direction from its label, and past the table's size none is
    /// made (the tap writes the line whole).
    func testAnEndByNumberIsMadeOnceFromItsLabel() throws {
        var parts = SIPLineParts()
        var made = 0
        let sent = try XCTUnwrap(parts.end(code: 9, sent: true) { made += 1; return "200 INVITE" })
        XCTAssertEqual(parts.end(code: 9, sent: true) { made += 1; return "other" }, sent)
        let received = try XCTUnwrap(parts.end(code: 9, sent: false) { made += 1; return "200 INVITE" })
        XCTAssertEqual(made, 2)
        XCTAssertEqual(text(parts, sent), #","sent":true,"message":"200 INVITE"}"#)
        XCTAssertEqual(text(parts, received), #","sent":false,"message":"200 INVITE"}"#)
        for i in 0..<(SIPLineParts.maxEnds - 2) { XCTAssertNotNil(parts.end(code: 100 + i, sent: true) { "\(i)" }) }
        XCTAssertNil(parts.end(code: 99, sent: true) { "full" })
    }
}
