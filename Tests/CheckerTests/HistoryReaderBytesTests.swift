import CallModel
import Foundation
import XCTest
@testable import Checker
import HistoryLoading
import TestSupport

/// The reader matches keys and enum words as bytes and maps the file (issue 20): these pin that it reads every line
/// as the `String`-per-word reader before it did, errors and their columns included.
final class HistoryReaderBytesTests: XCTestCase {
    /// Each line with the error the previous reader gave for it (recorded from that reader, commit 7e41c4e).
    static let malformed: [(String, String)] = [
        (#"{"t\u0000":1}"#, #"column 14: missing "type""#),
        (#"{"t":1,"type":"\u212Aind"}"#,
         "column 27: unknown type \"\u{212A}ind\" (invoke, complete, push, final, stop, target_killed, sip, dialog, media)"),
        (#"{"t":1,"type":"invoke","op":1,"device":"d","kind":"\u212Aind"}"#,
         "column 63: unknown kind \"\u{212A}ind\" (start, join, end, pause, resume, merge, unmerge)"),
        (#"{"t":1,"type":"stop","x":"\uZZZZ"}"#, #"column 29: bad \u escape"#),
        (#"{"t":1,"type":"stop","x":"\"#, "column 28: unterminated string"),
        (#"{"t":1,"type":"stop"} x"#, "column 23: unexpected text after the object"),
        (#"{"t":-1,"type":"stop"}"#, #"column 8: "t" is negative"#),
        (#"{"t":1.5,"type":"stop"}"#, "column 7: expected an integer"),
        (#"{"t":99999999999999999999,"type":"stop"}"#, "column 24: number too large"),
        (#"{"t":1,"type":5}"#, "column 15: expected a string"),
        (#"{"t":1,"type":"push","device":"d","event":"voipx"}"#,
         #"column 51: unknown push event "voipx" (joined, updated, ended, merged, split, voip)"#),
        (#"{"t":1,"type":"complete","op":1,"outcome":"okay"}"#, #"column 50: unknown outcome "okay" (ok, fail, info)"#),
        (#"{"t":1,"type":"final","device":"d","conversation":"c","local":{"state":"gone"}}"#,
         #"column 78: unknown member state "gone" (ringing, joined, held, left)"#),
        (#"{"t":1,"type":"final","device":"d","conversation":"c","local":{"members":[]}}"#,
         #"column 77: "local" without "state""#),
        (#"{"t":1,"type":"complete","op":1,"outcome":"ok","view":{"version":1}}"#, #"column 68: a view without "id""#),
        (#"{"t":1,"type":"complete","op":1,"outcome":"ok","view":{"id":"a","members":[{"device":"d"}]}}"#,
         #"column 90: a member needs "device" and "state""#),
        (#"{"t":1,"type":"complete","op":1,"outcome":"ok","view":{"id":"a","ended":maybe}}"#,
         "column 73: expected true or false"),
        (#"{"t":1,"type":"complete","op":1,"outcome":"ok","view":{"id":"a","x":nul}}"#, "column 69: expected a value"),
        ("[]", "column 1: expected '{'"),
        (#"{"t":1,"type":"stop""#, "column 21: expected '}'"),
        (#"{"t":1,"type":"invoke","op":1,"device":"d","kind":"join"}"#,
         #"column 58: join invoke without "conversation""#),
        (#"{"t":1,"type":"invoke","device":"d","kind":"join","conversation":"c"}"#,
         #"column 70: invoke line without "op""#),
        (#"{"t":1,"type":"push","event":"ended"}"#, #"column 38: push line without "device""#),
        (#"{"t":1,"type":"final","device":"d"}"#, #"column 36: final line without "conversation""#),
        (#"{"t":112550,"type":"invoke","op":1131,"devicey:"d690","kind":"pause","conversation":"c230"}"#,
         "column 49: expected ':'"),
        (#"{"t":1410050,"typ":"invoke","o":1129,"device":"d684","offset":"pause","conversation":"c228"}"#,
         "column 63: expected a number"),
        (#"{"t":1,"type":"Stop"}"#,
         #"column 22: unknown type "Stop" (invoke, complete, push, final, stop, target_killed, sip, dialog, media)"#),
        (#"{"t":1,"type":"complete","op":1,"outcome":"ok","view":{"id":"a","members":"#
            + #"[{"device":"d","state":"joinedd"}]}}"#,
         #"column 107: unknown member state "joinedd" (ringing, joined, held, left)"#),
    ]

    func testMalformedLinesGiveThePreviousReadersErrorsWithLineAndColumn() {
        for (n, (line, expected)) in Self.malformed.enumerated() {
            // Line numbers count from the file's start: put the bad line after n good ones.
            let text = String(repeating: "{\"t\":1,\"type\":\"stop\"}\n", count: n) + line
            XCTAssertThrowsError(try HistoryReader.parse(lines: text.split(separator: "\n"))) { error in
                XCTAssertEqual("\(error)", "history line \(n + 1), \(expected)", line)
            }
        }
    }

    func testAMappedFileNamesTheLineOfItsMalformedLine() throws {
        let url = TemporaryDirectory.path("history", suffix: ".jsonl")
        defer { TemporaryDirectory.remove(url) }
        let text = #"{"t":1,"type":"stop"}"# + "\n\n"
            + #"{"t":2,"type":"invoke","op":1,"device":"d","kind":"jump"}"# + "\n"
        try text.write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try HistoryReader.read(contentsOf: url)) { error in
            XCTAssertEqual("\(error)", "history line 3, column 58: unknown kind \"jump\" "
                           + "(start, join, end, pause, resume, merge, unmerge)")
        }
    }

    func testEscapedKeysAndWordsReadAsTheirDecodedText() throws {
        let line = #"{"\u0074":5,"\u0074ype":"inv\u006fke","op":1,"device":"d","kind":"\u006aoin","#
            + #""conversation":"c"}"#
        let events = try HistoryReader.parse(lines: [Substring(line)])
        XCTAssertEqual(events, [HistoryEvent(t: 5, line: 1, .invoke(Invoke(op: 1, device: "d", kind: .join,
                                                                            conversation: "c")))])
    }

    func testEveryKeyAndWordIsFoundByItsBytesAndNearMissesAreNot() {
        func bytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            Array(text.utf8).withUnsafeBufferPointer(body)
        }
        for key in HistoryKey.allCases {
            XCTAssertEqual(bytes(key.rawValue) { HistoryKey(bytes: $0) }, key)
            let misses = [key.rawValue + "s", String(key.rawValue.dropLast()) + "_", key.rawValue.uppercased(), ""]
            for miss in misses where HistoryKey(rawValue: miss) == nil {
                XCTAssertNil(bytes(miss) { HistoryKey(bytes: $0) }, miss)
            }
        }
        for kind in ActionKind.allCases {
            XCTAssertEqual(bytes(kind.rawValue) { HistoryNames.kinds.find($0) }, kind)
        }
        for state in MemberState.allCases {
            XCTAssertEqual(bytes(state.rawValue) { HistoryNames.memberStates.find($0) }, state)
            XCTAssertNil(bytes(state.rawValue + "x") { HistoryNames.memberStates.find($0) })
        }
        for type in LineType.allCases { XCTAssertEqual(bytes(type.rawValue) { HistoryNames.types.find($0) }, type) }
        XCTAssertNil(bytes("target_killed_") { HistoryNames.types.find($0) })
        XCTAssertNil(bytes("a_word_longer_than_sixteen_bytes") { HistoryNames.types.find($0) })
    }

    func testANonASCIIWordIsComparedAsTextLikeRawValue() {
        // U+212A KELVIN SIGN is canonically equivalent to "K": a String comparison (and init?(rawValue:)) says equal.
        let names = ByteNames([("K", 1), ("ok", 2)])
        XCTAssertEqual(Array("\u{212A}".utf8).withUnsafeBufferPointer { names.find($0) }, 1)
        XCTAssertNil(Array("\u{00E9}".utf8).withUnsafeBufferPointer { names.find($0) })
    }

    func testAnEmptyFileHasNoEventsAndADirectoryIsUnreadable() throws {
        let url = TemporaryDirectory.path("history", suffix: ".jsonl")
        defer { TemporaryDirectory.remove(url) }
        try Data().write(to: url)
        XCTAssertEqual(try HistoryReader.read(contentsOf: url), [])
        let dir = try TemporaryDirectory.make("history-dir")
        defer { TemporaryDirectory.remove(dir) }
        XCTAssertThrowsError(try HistoryReader.read(contentsOf: dir)) { error in
            guard case HistoryError.unreadable = error else { return XCTFail("\(error)") }
        }
    }

    func testAFileWithoutAFinalNewlineReadsItsLastLine() throws {
        let url = TemporaryDirectory.path("history", suffix: ".jsonl")
        defer { TemporaryDirectory.remove(url) }
        let h = HistoryCheckerTests.seedStory()
        try String(h.text.dropLast()).write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(try HistoryReader.read(contentsOf: url), try h.events())
    }
}
