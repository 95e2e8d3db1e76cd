import TextEscaping
import XCTest

/// The one-pass scan of named fields (`JSONScan`) against the tree it replaced on the hot paths (`JSONLite.parse`
/// then a lookup by path): the same documents refused, and every captured value the tree's value at that path.
final class JSONScanTests: XCTestCase {
    private typealias Step = JSONPattern.Step

    /// Asserts the scan and the tree agree on `text` for every path, and returns the scan.
    @discardableResult
    private func agree(_ text: String, _ paths: [[Step]], file: StaticString = #filePath, line: UInt = #line)
        -> JSONScan? {
        var pattern = JSONPattern()
        let slots = paths.map { pattern.capture($0) }
        let bytes = Array(text.utf8)
        let tree = JSONLite.parse(bytes)
        let scan = JSONScan(bytes, pattern)
        XCTAssertEqual(scan == nil, tree == nil, "refused alike: \(text)", file: file, line: line)
        guard let scan, let tree else { return nil }
        for (path, slot) in zip(paths, slots) {
            let expected = tree.value(at: path)
            XCTAssertEqual(scan.value(slot), expected, "\(path) in \(text)", file: file, line: line)
            XCTAssertEqual(scan.string(slot), expected?.stringValue, "\(path) in \(text)", file: file, line: line)
            XCTAssertEqual(scan.int(slot), expected?.intValue, "\(path) in \(text)", file: file, line: line)
            XCTAssertEqual(scan.bool(slot), expected?.boolValue, "\(path) in \(text)", file: file, line: line)
            XCTAssertEqual(scan.isPresent(slot), expected.map { !$0.isNull } ?? false, "\(path) in \(text)",
                           file: file, line: line)
        }
        return scan
    }

    func testDocumentsTheTreeRefusesTheScanRefuses() {
        let paths: [[Step]] = [[.key("a")], [.key("a"), .index(0)]]
        for text in ["", " ", "{", "{\"a\":1", "{\"a\":1} x", "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}",
                     "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud800\\u0041\"}",
                     "{\"a\":\"\u{1F}\"}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "[1,]", "{\"a\":tru}", "{\"a\":nul}",
                     "{\"a\":[1 2]}", "{\"a\":\"\\u12G4\"}", "{\"\\q\":1}", "{\"a\":1}{}", "nul", "\"open",
                     "{\"a\":[1],\"a\":{\"b\":}}"] {
            XCTAssertNil(agree(text, paths), text)
        }
        for text in ["1", "\"s\"", "null", "[]", "{}", " {\"a\" : [ 1 , 2 ] } ", "[{\"a\":1}]"] {
            XCTAssertNotNil(agree(text, paths), text)
        }
    }

    func testNestingIsCappedAtTheTreesDepth() {
        for depth in [62, 63, 64, 65, 200] {
            let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            agree(text, [[.index(0)]])
            let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
            agree(objects, [Array(repeating: Step.key("a"), count: min(depth, 70))])
        }
    }

    func testTheLastOfRepeatedMembersIsTheOneRead() {
        let paths: [[Step]] = [[.key("a")], [.key("a"), .key("b")], [.key("a"), .key("c")], [.key("a"), .index(1)]]
        agree(#"{"a":1,"a":2}"#, paths)
        agree(#"{"a":{"b":1,"c":2},"a":{"c":3}}"#, paths)  // b was under the first a only: not there any more
        agree(#"{"a":{"b":1},"x":0,"a":[5,6]}"#, paths)
        agree(#"{"a":[5,6],"a":"s"}"#, paths)
        agree(#"{"a":{"b":1,"b":null}}"#, paths)
    }

    func testEscapedNamesAndValuesReadAsTheTreeReadsThem() {
        let paths: [[Step]] = [[.key("id")], [.key("name")], [.key("q\"t")], [.key("é")], [.key("K")]]
        agree(#"{"\u0069d":"x","name":"A \"B\" \u00e9\ud83d\ude00 \n\/"}"#, paths)
        agree(#"{"q\"t":1,"\u00e9":2,"\u212A":3}"#, paths)  // é escaped; the Kelvin sign is K to a String
        agree("{\"e\u{301}\":4,\"\u{212A}\":5}", paths)  // é decomposed: the same String as é
        agree("{\"id\":\"\u{FF}bad\",\"name\":\"\u{00E9}\"}", paths)
        var bytes = Array(#"{"id":"x","name":""#.utf8) + [0xFF, 0xC3] + Array(#""}"#.utf8)
        var pattern = JSONPattern()
        let name = pattern.capture([.key("name")])
        XCTAssertEqual(JSONScan(bytes, pattern)?.string(name), JSONLite.parse(bytes)?["name"]?.stringValue,
                       "invalid UTF-8 repaired alike")
        bytes = Array(#"{"id":"x","#.utf8) + [0x22, 0xFF, 0x22] + Array(#":1}"#.utf8)
        XCTAssertNotNil(JSONScan(bytes, pattern), "a name of invalid UTF-8 is compared, not refused")
    }

    /// Names and values of 0 to 20 bytes around the eight-byte steps: plain ASCII (a name read from its first word,
    /// a value made without validation), with a byte above 0x7F, with an escape, and cut short.
    func testStringsOfEveryLengthAroundAWordReadAsTheTreeReadsThem() {
        for n in 0...20 {
            let plain = String((0..<n).map { Character(UnicodeScalar(0x61 + UInt8($0 % 26))) })
            for name in [plain, plain + "é", "é" + plain, plain + "\\n", plain + "\\u0041"] {
                let paths: [[Step]] = [[.key(name)], [.key(plain)], [.key(plain + "é")], [.key("v")]]
                agree("{\"\(name)\":1,\"v\":\"\(name)\"}", paths)
                agree("{\"v\":\"\(name)\",\"\(name)\":\"\(plain)\"}", paths)
                agree("{\"\(name)\":\"\(plain)\"}", paths)
                agree("{\"\(name)", paths)  // cut inside the name: refused alike
                agree("{\"\(name)\"", paths)
            }
        }
    }

    func testKeyStepsFindNothingInArraysAndIndexStepsNothingInObjects() {
        let paths: [[Step]] = [[.key("a"), .key("0")], [.key("a"), .index(0)], [.index(0)], [.key("a"), .index(-1)],
                               [.key("a"), .index(2)], []]
        agree(#"{"a":[7,8]}"#, paths)
        agree(#"{"a":{"0":7}}"#, paths)
        agree(#"[{"a":[1]}]"#, paths)
        agree(#""a""#, paths)
    }

    func testNumbersAndStringsKeepTheirKinds() {
        let paths: [[Step]] = [[.key("n")]]
        for value in ["7", "\"7\"", "7.0", "1e3", "1.5", "-0", "9007199254740993", "1e400", "-1e400", "true",
                      "false", "null", "[7]", "{\"n\":7}", "123456789012345678", "8999999999999999"] {
            agree("{\"n\":\(value)}", paths)
        }
    }

    func testListsReadEveryElementWithItsOwnFields() throws {
        var pattern = JSONPattern()
        let members = pattern.list([.key("members")])
        let id = pattern.capture([.key("id")], in: members.elements)
        let first = pattern.capture([.key("members"), .index(0), .key("id")])
        let again = pattern.list([.key("members")])
        XCTAssertEqual(again.slot, members.slot, "the same path gives the same list")
        let text = #"{"members":[{"id":"a"},{"x":1},7,{"id":"b","id":"c"}],"members":[{"id":"d"},{"id":"e"}]}"#
        let scan = try XCTUnwrap(JSONScan(Array(text.utf8), pattern))
        let elements = try XCTUnwrap(scan.elements(members.slot))
        XCTAssertEqual(elements.map { scan.string(id, $0) }, ["d", "e"], "the last members only")
        XCTAssertEqual(scan.string(first), "d")
        let none = try XCTUnwrap(JSONScan(Array(#"{"members":[{"id":"a"}],"members":{"id":"b"}}"#.utf8), pattern))
        XCTAssertNil(none.elements(members.slot), "not an array: no elements")
        XCTAssertEqual(none.kind(members.slot), .object)
        let mixed = try XCTUnwrap(JSONScan(Array(#"{"members":[{"id":"a"},{},null,{"id":5}]}"#.utf8), pattern))
        let read = try XCTUnwrap(mixed.elements(members.slot)).map { (mixed.kind(id, $0), mixed.string(id, $0)) }
        XCTAssertEqual(read.map(\.0), [.string, .absent, .absent, .number])
        XCTAssertEqual(read.map(\.1), ["a", nil, nil, nil])
        let empty = try XCTUnwrap(JSONScan(Array(#"{"members":[]}"#.utf8), pattern))
        XCTAssertEqual(empty.elements(members.slot)?.count, 0)
    }
}
