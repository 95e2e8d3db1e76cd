@testable import Checker
import XCTest

final class TextIDsTests: XCTestCase {
    func testEachTextGetsOneIdInTheOrderTextsFirstCome() {
        var ids = TextIDs()
        // Past the first table's 128 texts, so the slots are rebuilt on the way; Call-ID-long and short texts.
        let texts = (0..<1_000).map { $0 % 2 == 0 ? "dev-\($0)" : "1l5e9jnjj46-\($0)@127.0.0.1" }
        for (k, text) in texts.enumerated() { XCTAssertEqual(ids.id(text), k) }
        for (k, text) in texts.enumerated().reversed() {
            XCTAssertEqual(ids.id(text), k)
            XCTAssertEqual(ids.find(text), k)
        }
        XCTAssertEqual(ids.count, texts.count)
        XCTAssertEqual(ids.texts, texts)
        XCTAssertNil(ids.find("dev-1"))
        XCTAssertNil(ids.find(""))
        XCTAssertEqual(ids.id(""), texts.count)
    }

    /// `String`'s `==` is canonical equivalence, as the dictionaries the ids replaced compared keys: texts equal so
    /// share an id whatever their bytes.
    func testCanonicallyEqualTextsShareAnId() {
        var ids = TextIDs()
        let precomposed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        XCTAssertEqual(ids.id(precomposed), 0)
        XCTAssertEqual(ids.id(decomposed), 0)
        XCTAssertEqual(ids.id("K"), 1)
        XCTAssertEqual(ids.find("\u{212A}"), 1)  // KELVIN SIGN, whose canonical form is "K"
        XCTAssertEqual(ids.id("\u{E9}t\u{E9}"), 2)
    }

    /// The same text in many `String`s (the reader's table hands out one, a general line or a table started
    /// again another) has one id, found by identity or by text; `String`s freed and their storage reused for
    /// other texts never take an id that is not theirs.
    func testATextHasOneIdWhicheverStringCarriesItAndFreedStringsLendNone() {
        var ids = TextIDs()
        var expected: [String: Int] = [:]
        for round in 0..<40 {
            for k in 0..<300 {
                // A new `String` each time (made from its bytes), long enough not to be a small string.
                let text = String(decoding: Array("call-\((k * 7 + round) % 500)@host.example".utf8), as: UTF8.self)
                let id = ids.id(text)
                if let known = expected[text] { XCTAssertEqual(id, known, text) } else { expected[text] = id }
                XCTAssertEqual(ids.find(text), id, text)
                XCTAssertEqual(ids.id(text), id, text)  // now by identity
            }
        }
        XCTAssertEqual(ids.count, expected.count)
        for (text, id) in expected { XCTAssertEqual(ids.texts[id], text) }
    }
}

