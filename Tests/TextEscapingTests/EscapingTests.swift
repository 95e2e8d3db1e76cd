import TextEscaping
import XCTest

/// XCTest, not Swift Testing: `make test` runs XCTest only (`--disable-swift-testing`).
final class JSONTextTests: XCTestCase {
    func testPlainTextIsReturnedUnchanged() {
        XCTAssertEqual(JSONText.escape("device-17 Ünïcode ☎"), "device-17 Ünïcode ☎")
        XCTAssertEqual(JSONText.quote("abc"), "\"abc\"")
    }

    func testQuotesBackslashesAndControlCharactersAreEscaped() {
        XCTAssertEqual(JSONText.escape("a\"b\\c"), "a\\\"b\\\\c")
        XCTAssertEqual(JSONText.escape("l1\nl2\r\t"), "l1\\nl2\\r\\t")
        XCTAssertEqual(JSONText.escape("\u{01}\u{1F}"), "\\u0001\\u001f")
    }

    /// `unescaped` reads the short escapes back: every one `escape` writes, plus `/`, `b` and `f`.
    func testShortEscapesReadBack() {
        let pairs: [(Character, UInt8)] = [("\"", 0x22), ("\\", 0x5C), ("/", 0x2F), ("b", 0x08), ("f", 0x0C),
                                           ("n", 0x0A), ("r", 0x0D), ("t", 0x09)]
        for (letter, byte) in pairs {
            XCTAssertEqual(JSONText.unescaped(letter.asciiValue!), byte, "\(letter)")
        }
        for letter in ["u", "x", "0", "N"] { XCTAssertNil(JSONText.unescaped(Character(letter).asciiValue!)) }
    }
}

final class MarkupEscapingTests: XCTestCase {
    func testTheFiveSpecialCharactersBecomeEntities() {
        XCTAssertEqual("<a href=\"x\">Tom & 'Jerry'</a>".markupEscaped,
                       "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
    }

    func testLineBreaksAndTabsBecomeReferencesAndForbiddenCharactersAreDropped() {
        XCTAssertEqual("a\nb\rc\td".markupEscaped, "a&#10;b&#13;c&#9;d")
        XCTAssertEqual("x\u{01}y\u{FFFE}z".markupEscaped, "xyz")
    }
}
