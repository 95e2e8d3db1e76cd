import Testing
import TextEscaping

struct JSONTextTests {
    @Test func plainTextIsReturnedUnchanged() {
        #expect(JSONText.escape("device-17 Ünïcode ☎") == "device-17 Ünïcode ☎")
        #expect(JSONText.quote("abc") == "\"abc\"")
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect(JSONText.escape("a\"b\\c") == "a\\\"b\\\\c")
        #expect(JSONText.escape("l1\nl2\r\t") == "l1\\nl2\\r\\t")
        #expect(JSONText.escape("\u{01}\u{1F}") == "\\u0001\\u001f")
    }
}

struct MarkupEscapingTests {
    @Test func theFiveSpecialCharactersBecomeEntities() {
        #expect("<a href=\"x\">Tom & 'Jerry'</a>".markupEscaped
            == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
    }

    @Test func lineBreaksAndTabsBecomeReferencesAndForbiddenCharactersAreDropped() {
        #expect("a\nb\rc\td".markupEscaped == "a&#10;b&#13;c&#9;d")
        #expect("x\u{01}y\u{FFFE}z".markupEscaped == "xyz")
    }
}
