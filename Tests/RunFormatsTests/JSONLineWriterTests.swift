import CallModel
import Foundation
@testable import RunFormats
import TextEscaping
import XCTest

/// `sip`, `dialog`, `invoke` and view-less `complete` lines are built in scratch memory at once (`JSONLineWriter`);
/// these pin that they are the bytes the piece-by-piece writer (`JSONText.appendQuoted`, `appendInteger`) wrote.
final class JSONLineWriterTests: XCTestCase {
    static let texts = ["", "dev-0", "1l5e9jnjj46@127.0.0.1", "call \"42\" \\ path\n\r\t\u{1}\u{8}\u{C}\u{1F}\u{7F}é",
                        "ümlaut 😀 \u{0}", String(repeating: "long-id-", count: 40)]

    private func written(_ body: (inout JSONLineWriter) -> Void, capacity: Int) -> [UInt8] {
        var out: [UInt8] = [0x41]  // appended after what is there
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var writer = JSONLineWriter(scratch)
            body(&writer)
            writer.append(to: &out)
        }
        return Array(out.dropFirst())
    }

    func testTextsAreQuotedAndEscapedAsJSONTextDoes() {
        for text in Self.texts {
            var expected: [UInt8] = []
            JSONText.appendQuoted(text, to: &expected)
            XCTAssertEqual(written({ $0.quoted(text) }, capacity: JSONLineWriter.bound(text)), expected, text)
        }
    }

    /// The plain-text check reads eight bytes a step: a byte to escape is found in any position of a word, in the
    /// tail after the last whole word, and next to bytes from 0x80 up (which need no escape).
    func testAByteNeedingAnEscapeIsFoundInEveryPositionOfAWordAndTheTail() {
        for length in 1...19 {
            for position in 0..<length {
                for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}"] {
                    var chars = Array(repeating: "a", count: length)
                    chars[position] = special
                    if position > 0 { chars[position - 1] = "é" }
                    let text = chars.joined()
                    var expected: [UInt8] = []
                    JSONText.appendQuoted(text, to: &expected)
                    XCTAssertEqual(written({ $0.quoted(text) }, capacity: JSONLineWriter.bound(text)), expected, text)
                }
            }
        }
        let plain = ["\u{7F}\u{80}ÿ !#[]~", "        ", String(repeating: "\u{20}\u{21}\u{23}\u{5B}\u{5D}", count: 5)]
        for text in plain {
            var expected: [UInt8] = []
            JSONText.appendQuoted(text, to: &expected)
            XCTAssertEqual(written({ $0.quoted(text) }, capacity: JSONLineWriter.bound(text)), expected, text)
        }
    }

    func testIntegersAreTheDigitsJSONTextWrites() {
        let values: [Int64] = [0, 9, 10, 99, 100, 918_531_912, -1, -4, Int64.max, Int64.min]
        for value in values {
            var expected: [UInt8] = []
            JSONText.appendInteger(value, to: &expected)
            XCTAssertEqual(written({ $0.integer(value) }, capacity: JSONLineWriter.integerBound), expected)
        }
        var expected: [UInt8] = []
        JSONText.appendInteger(UInt64.max, to: &expected)
        XCTAssertEqual(written({ $0.integer(UInt64.max) }, capacity: JSONLineWriter.integerBound), expected)
    }

    /// Fixed-point times (actions.csv) are written two fraction digits a division: every count of decimals from 0
    /// to 9, fractions with leading zeros, odd and even counts, the widest value; the same text as digit by digit.
    func testFixedPointTimesAreTheDigitByDigitTextForEveryCountOfDecimals() {
        let values: [UInt64] = [0, 1, 7, 10, 99, 100, 101, 1_000, 1_000_001, 3_061_734, 918_531_912_345,
                                999_999_999, 1_000_000_000, UInt64.max]
        for decimals in 0...9 {
            var scale: UInt64 = 1
            for _ in 0..<decimals { scale *= 10 }
            for value in values {
                let fraction = String(value % scale)
                let expected = "\(value / scale)." + String(repeating: "0", count: decimals - (decimals == 0 ? 0 :
                                                                                              fraction.count)) +
                    (decimals == 0 ? "" : fraction)
                let bytes = written({ $0.fixed(value, decimals: decimals) }, capacity: JSONLineWriter.fixedBound)
                XCTAssertEqual(String(decoding: bytes, as: UTF8.self), expected, "\(value) \(decimals)")
            }
        }
    }

    private func line(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func q(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONText.appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func testHistoryLinesBuiltAtOnceKeepTheirShapeForAnyText() {
        for text in Self.texts {
            XCTAssertEqual(line { HistoryText.sip(t: 12, device: text, conversation: text, sent: false,
                                                  message: text, into: &$0) },
                           #"{"t":12,"type":"sip","device":\#(q(text)),"conversation":\#(q(text)),"#
                           + #""sent":false,"message":\#(q(text))}"#)
            XCTAssertEqual(line { HistoryText.dialog(t: 3, device: text, conversation: text, state: .terminated,
                                                     reason: text, call: 7, user: text, into: &$0) },
                           #"{"t":3,"type":"dialog","device":\#(q(text)),"user":\#(q(text)),"#
                           + #""conversation":\#(q(text)),"state":"terminated","reason":\#(q(text)),"call":7}"#)
            XCTAssertEqual(line { HistoryText.invoke(t: 1, op: 2, device: text, kind: .merge, conversation: text,
                                                     with: text, member: text, call: 3, step: text,
                                                     race: (name: text, offset: -5), user: text, into: &$0) },
                           #"{"t":1,"type":"invoke","op":2,"device":\#(q(text)),"user":\#(q(text)),"kind":"merge""#
                           + (text.isEmpty ? "" : #","conversation":\#(q(text))"#)
                           + #","with":\#(q(text)),"member":\#(q(text)),"call":3,"step":\#(q(text)),"#
                           + #""race":\#(q(text)),"offset":-5}"#)
            XCTAssertEqual(line { HistoryText.complete(t: 4, op: 2, outcome: "fail", reason: text,
                                                       conversation: text, view: nil, split: nil, into: &$0) },
                           #"{"t":4,"type":"complete","op":2,"outcome":"fail","reason":\#(q(text))"#
                           + (text.isEmpty ? "" : #","conversation":\#(q(text))"#) + "}")
        }
        XCTAssertEqual(line { HistoryText.sip(t: 918_531_912, device: "dev-0", conversation: "1l5e9jnjj46@127.0.0.1",
                                              sent: true, message: "INVITE", into: &$0) },
                       #"{"t":918531912,"type":"sip","device":"dev-0","conversation":"1l5e9jnjj46@127.0.0.1","#
                       + #""sent":true,"message":"INVITE"}"#)
        XCTAssertEqual(line { HistoryText.dialog(t: 2, device: "dev-1", conversation: "c", state: .early,
                                                 reason: nil, call: nil, into: &$0) },
                       #"{"t":2,"type":"dialog","device":"dev-1","conversation":"c","state":"early"}"#)
    }
}
