import TextEscaping
import XCTest

/// The scan's fast paths (literals compared as one word, short strings and values read from their first word,
/// unreached values skipped with the same short-string read, nodes read in place) against the general reader, the
/// JSONLite tree: every one-byte mutation of documents that exercise them is refused alike, and every captured value
/// read alike.
final class JSONScanMutationTests: XCTestCase {
    private typealias Step = JSONPattern.Step

    /// A push and a view: literals in captured and skipped places, strings of 0 to 40 bytes (plain, escaped, not
    /// ASCII) as names and values, a list of members, an index step, an empty object and array, nesting.
    private let seeds = [
        #"{"conversationId":"6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab","event":"joined","v":3,"ok":true,"no":false,"#
            + #""nil":null,"view":{"id":"c1","state":"active","members":[{"id":"d-1","status":"joined","muted":false},"#
            + #"{"id":"d-2","status":"ringing","muted":null,"x":[true,false,null]}],"tags":[],"meta":{}},"#
            + #""caller":{"kind":"phone","value":"+15550001","displayName":"A \u00e9 \"b\"\\/"},"é":"ü","#
            + #""skipped":{"a":[1,-2.5e3,"abcdefgh","abcdefghi",true],"b":{"c":null}},"id":"last"}"#,
        #"[{"id":"x","ok":true},{"ok":false,"id":"\u0079"},null,"",{"id":"abcdefgh","ok":null}]"#,
    ]

    private let paths: [[Step]] = [
        [], [.key("conversationId")], [.key("event")], [.key("v")], [.key("ok")], [.key("no")], [.key("nil")],
        [.key("view")], [.key("view"), .key("members"), .index(1), .key("status")],
        [.key("view"), .key("members"), .index(0), .key("muted")], [.key("view"), .key("tags")],
        [.key("caller"), .key("displayName")], [.key("é")], [.key("id")], [.index(0), .key("ok")],
        [.index(1), .key("id")], [.index(4), .key("id")], [.index(3)],
    ]

    /// The pattern of `paths` and a member list, made once (each capture lays the table out again).
    private lazy var reading: (pattern: JSONPattern, slots: [JSONPattern.Slot], list: JSONPattern.Slot,
                               memberID: JSONPattern.Slot, memberMuted: JSONPattern.Slot) = {
        var pattern = JSONPattern()
        let slots = paths.map { pattern.capture($0) }
        let list = pattern.list([.key("view"), .key("members")])
        let memberID = pattern.capture([.key("id")], in: list.elements)
        let memberMuted = pattern.capture([.key("muted")], in: list.elements)
        return (pattern, slots, list.slot, memberID, memberMuted)
    }()

    private func check(_ bytes: [UInt8], _ note: @autoclosure () -> String) {
        let (pattern, slots, list, memberID, memberMuted) = reading
        let tree = JSONLite.parse(bytes)
        let scan = JSONScan(bytes, pattern)
        XCTAssertEqual(scan == nil, tree == nil, "refused alike: \(note())")
        guard let scan, let tree else { return }
        for (path, slot) in zip(paths, slots) {
            let expected = tree.value(at: path)
            XCTAssertEqual(scan.value(slot), expected, "\(path): \(note())")
            XCTAssertEqual(scan.string(slot), expected?.stringValue, "\(path): \(note())")
            XCTAssertEqual(scan.bool(slot), expected?.boolValue, "\(path): \(note())")
            XCTAssertEqual(scan.kind(slot) == .null, expected?.isNull ?? false, "\(path): \(note())")
        }
        guard case .array(let members)? = tree.value(at: [.key("view"), .key("members")]) else {
            XCTAssertNil(scan.elements(list), note())
            return
        }
        let read = scan.elements(list).map { $0.map { (scan.value(memberID, $0), scan.value(memberMuted, $0)) } }
        XCTAssertEqual(read?.map(\.0), members.map { $0.value(at: [.key("id")]) }, note())
        XCTAssertEqual(read?.map(\.1), members.map { $0.value(at: [.key("muted")]) }, note())
    }

    func testTheSeedsReadAsTheTreeReadsThem() {
        for seed in seeds {
            XCTAssertNotNil(JSONLite.parse(Array(seed.utf8)), seed)
            check(Array(seed.utf8), seed)
        }
    }

    /// Each byte deleted, replaced by each byte that matters to the fast paths (quotes, backslashes, the letters
    /// of the literals, control and non-ASCII bytes), and each inserted before it.
    func testEveryOneByteMutationIsReadAsTheTreeReadsIt() {
        let bytes: [UInt8] = Array(#"{}[]":,\ 0-.etrufalsn"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for seed in seeds.map({ Array($0.utf8) }) {
            for i in seed.indices {
                var deleted = seed
                deleted.remove(at: i)
                check(deleted, "deleted \(i)")
                for b in bytes {
                    var replaced = seed
                    replaced[i] = b
                    check(replaced, "byte \(b) at \(i)")
                    var inserted = seed
                    inserted.insert(b, at: i)
                    check(inserted, "byte \(b) inserted at \(i)")
                }
            }
        }
    }

    /// A node of many keys (its name filter's 64 bits shared, collisions certain): each wanted name found, each
    /// near miss (a byte more, a byte less, the ninth byte changed) not, whatever the order.
    func testANodeOfManyKeysFindsEveryNameAndNoNearMiss() throws {
        let names = (0..<90).map { i in String(repeating: "k", count: i % 12) + "\(i)" } + ["", "abcdefgh", "abcdefghi"]
        var pattern = JSONPattern()
        let slots = names.map { pattern.capture([.key($0)]) }
        let misses = names.flatMap { [$0 + "x", String($0.dropLast()), $0.count > 8 ? $0.prefix(8) + "z" : "q" + $0] }
        for order in [Array(names.indices), Array(names.indices.reversed())] {
            let members = order.map { "\"\(names[$0])\":\($0)" } + misses.enumerated().map { "\"\($1)\":-\($0 + 1)" }
            let bytes = Array(("{" + members.joined(separator: ",") + "}").utf8)
            let scan = try XCTUnwrap(JSONScan(bytes, pattern))
            let tree = try XCTUnwrap(JSONLite.parse(bytes))
            for (name, slot) in zip(names, slots) {
                XCTAssertEqual(scan.int(slot), tree.value(at: [.key(name)])?.intValue, name)
            }
        }
    }

    /// Literals and short strings cut at every length, at the end of the bytes (a word read past them would be out
    /// of bounds) and inside a document.
    func testLiteralsAndStringsCutShortAreRefusedAlike() {
        for text in ["true", "false", "null", "\"abc\"", "\"abcdefg\"", "\"abcdefgh\"", "\"a\\u00e9\""] {
            let whole = Array(text.utf8)
            for n in 0...whole.count {
                check(Array(whole[0..<n]), "\(text) cut at \(n)")
                check(Array("{\"ok\":".utf8) + whole[0..<n] + Array("}".utf8), "\(text) cut at \(n) in an object")
                check(Array("[".utf8) + whole[0..<n] + Array(",1]".utf8), "\(text) cut at \(n) in an array")
            }
        }
        for text in ["tru", "fals", "nul", "truE", "falsE", "nulL", "trues", "nullnull", "fale", "falsee"] {
            check(Array("{\"ok\":\(text)}".utf8), text)
            check(Array("{\"skip\":\(text)}".utf8), text)
        }
    }
}
