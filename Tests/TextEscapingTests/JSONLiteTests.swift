import Foundation
import TextEscaping
import XCTest

/// JSONLite's numbers, strings and objects against Foundation's reader, and its refusals.
final class JSONLiteTests: XCTestCase {
    func testNumbersReadAsFoundationReadsThem() throws {
        let texts = ["0", "-0", "7", "-7", "42", "1764787200123", "999999999999999", "1000000000000000",
                     "-123456789012345678", "3.25", "-0.5", "1e3", "2E-2", "12.5e+1", "9007199254740993"]
        for text in texts {
            let mine = try XCTUnwrap(JSONLite.parse(Array("[\(text)]".utf8))?.arrayValue?.first, text)
            let theirs = try XCTUnwrap((JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [Any])?
                .first as? NSNumber, text)
            guard case .number(let value) = mine else { return XCTFail("\(text) is not a number") }
            XCTAssertEqual(value, theirs.doubleValue, text)
            XCTAssertEqual(value.sign, Double(text)!.sign, text)
        }
    }

    func testMalformedNumbersAreRefused() {
        for text in ["01", "-", "1.", ".5", "1e", "1e+", "--1", "+1", "0x10", "1.2.3"] {
            XCTAssertNil(JSONLite.parse(Array("[\(text)]".utf8)), text)
        }
    }

    func testObjectsKeepEveryKeyWhateverTheirCount() throws {
        for count in [0, 1, 7, 8, 9, 40] {
            let body = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            let value = try XCTUnwrap(JSONLite.parse(Array("{\(body)}".utf8)))
            for i in 0..<count { XCTAssertEqual(value["k\(i)"]?.intValue, i) }
            XCTAssertNil(value["k\(count)"])
        }
    }

    func testStringsReadAlikeWhereverAQuoteEscapeOrControlByteFallsInAWord() throws {
        // The fast path skips whole 8-byte words: put each special byte at every offset of the first three words.
        let plain = Array("abcdefghijklmnopqrstuvwx".utf8)
        for offset in 0..<plain.count {
            var escaped = plain
            escaped.insert(contentsOf: Array(#"\n"#.utf8), at: offset)
            let read = try XCTUnwrap(JSONLite.parse([0x22] + escaped + [0x22])?.stringValue, "escape at \(offset)")
            var expected = plain
            expected.insert(0x0A, at: offset)
            XCTAssertEqual(Array(read.utf8), expected, "escape at \(offset)")

            var ended = plain
            ended.insert(0x22, at: offset)
            XCTAssertNil(JSONLite.parse([0x22] + ended + [0x22]), "a quote at \(offset) ends the string early")
            XCTAssertEqual(JSONLite.parse([0x5B, 0x22] + plain[..<offset] + [0x22, 0x5D])?.arrayValue?.first?
                .stringValue, String(decoding: plain[..<offset], as: UTF8.self), "quote at \(offset)")

            var control = plain
            control.insert(0x1F, at: offset)
            XCTAssertNil(JSONLite.parse([0x22] + control + [0x22]), "a raw control byte at \(offset) is refused")
        }
        let multibyte = "ünïcødé strings past eight bytes: ✓"
        XCTAssertEqual(JSONLite.parse(Array("\"\(multibyte)\"".utf8))?.stringValue, multibyte)
    }
}
