import TextEscaping
import XCTest

/// The byte-appending forms write what `JSONText.quote` and `String(value)` write.
final class JSONBytesOutTests: XCTestCase {
    private func quoted(_ value: String) -> String {
        var out: [UInt8] = Array("x".utf8)
        JSONText.appendQuoted(value, to: &out)
        return String(decoding: out.dropFirst(), as: UTF8.self)
    }

    func testQuotedBytesAreQuotesText() {
        let values = ["", "dev-17", "Ünïcode ☎", "a\"b\\c", "l1\nl2\r\t", "\u{01}\u{1F}",
                      String(repeating: "é", count: 40)]
        for value in values {
            XCTAssertEqual(quoted(value), JSONText.quote(value), value)
        }
        // A bridged or sliced string has no contiguous UTF-8 at hand: the same text all the same.
        XCTAssertEqual(quoted(String("prefix a\"b".dropFirst(7))), JSONText.quote("a\"b"))
    }

    func testIntegersAreTheirDecimalDigits() {
        for value: Int64 in [0, 7, -7, 10, 99, -100, 1_764_787_200_123, .max, .min] {
            var out: [UInt8] = []
            JSONText.appendInteger(value, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), String(value))
        }
        var out: [UInt8] = []
        JSONText.appendInteger(UInt64.max, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "18446744073709551615")
    }
}
