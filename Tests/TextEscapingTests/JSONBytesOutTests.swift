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

    /// The digit count comes from the bit length and the digits two at a time: every count from 1 to 20, each
    /// power of ten and the values either side of it, and the widest values of each bit length.
    func testDigitsAreStringsDigitsAtEveryLengthAndPowerOfTen() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0..<20 {
            values += [power, power &- 1, power &+ 1]
            if power <= UInt64.max / 10 { power *= 10 } else { break }
        }
        for bits in 1...64 { values.append(UInt64.max >> (64 - bits)) }
        for value in values {
            var scratch = [UInt8](repeating: 0, count: 20)
            let n = scratch.withUnsafeMutableBufferPointer { JSONText.writeDigits(value, to: $0.baseAddress!) }
            XCTAssertEqual(String(decoding: scratch[..<n], as: UTF8.self), String(value))
            var out: [UInt8] = []
            JSONText.appendInteger(value, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), String(value))
        }
    }
}
