import CallModel
import XCTest
@testable import Checker
import RunFormats

/// `push`, `final` and view-carrying `complete` lines in the writer's exact shapes are read by the fixed-shape
/// reader (HistoryReader+ViewLines.swift); these pin that it reads them as the general scanner does, for views with
/// and without a version, no members and several, escapes and non-ASCII texts, and that every other shape (another
/// key order, a negative version, an unknown word, a missing key) is left to the scanner.
final class HistoryReaderViewLinesTests: XCTestCase {
    private var texts = TextTable()

    private func fast(_ line: String) -> HistoryEvent? {
        Array(line.utf8).withUnsafeBufferPointer { HistoryReader.fixedLine($0, number: 1, texts: &texts) }
    }

    private func general(_ line: String) throws -> HistoryEvent? {
        try Array(line.utf8).withUnsafeBufferPointer { try HistoryReader.generalLine($0, number: 1) }
    }

    private static func views() -> [ConversationView] {
        var noVersion = ConversationView(uuid: "c-2", version: 0, members: [])
        noVersion.hasVersion = false
        return [
            ConversationView(uuid: "baab250e-9454-472a-b5d2-6b986b3f70fc", version: 1, ended: false,
                             members: [.init(device: "dev-0", state: .joined), .init(device: "dev-1", state: .ringing)]),
            ConversationView(uuid: "c", version: 123_456_789_012, ended: true,
                             members: [.init(device: "dévice", state: .left), .init(device: "d2", state: .held),
                                       .init(device: "d3", state: .joined)]),
            noVersion,
            ConversationView(uuid: "q\"uote", version: 2, members: [.init(device: "d", state: .joined)]),
        ]
    }

    private func lines() -> [(String, Bool)] {
        var out: [(String, Bool)] = []
        func add(_ write: (inout [UInt8]) -> Void, plain: Bool) {
            var bytes: [UInt8] = []
            write(&bytes)
            out.append((String(decoding: bytes, as: UTF8.self), plain))
        }
        for (i, v) in Self.views().enumerated() {
            let plain = !v.uuid.contains("\"")
            add({ HistoryText.push(t: 5, device: "dev-\(i)", event: "voip", conversation: v.uuid, into: nil, view: v,
                                   into: &$0) }, plain: plain)
            add({ HistoryText.push(t: 6, device: "d", event: "merged", conversation: "c", into: "c-\(i)", view: v,
                                   user: "u-1", reason: "joinedElsewhere", into: &$0) }, plain: plain)
            add({ HistoryText.complete(t: 7, op: UInt64(i), outcome: "ok", reason: nil, conversation: v.uuid, view: v,
                                       split: i == 1 ? Self.views()[0] : nil, into: &$0) }, plain: plain)
            add({ HistoryText.final(t: 8, device: "dev-\(i)", conversation: v.uuid, server: v,
                                    local: (state: "left", members: i == 0 ? [] : ["dev-0", "dévice"],
                                            active: i == 1 ? ["dev-0"] : []),
                                    user: i == 2 ? "u" : nil, into: &$0) }, plain: plain)
        }
        add({ HistoryText.push(t: 9, device: "d", event: "ended", conversation: "c", into: nil, view: nil,
                               into: &$0) }, plain: true)
        return out
    }

    func testLinesTheWriterWritesReadTheSameThroughTheFastPathAsThroughTheScanner() throws {
        for (line, plain) in lines() {
            let general = try XCTUnwrap(try general(line), line)
            let fast = fast(line)
            XCTAssertEqual(fast != nil, plain, line)
            if let fast { XCTAssertEqual(fast, general, line) }
            XCTAssertEqual(try HistoryReader.parse(lines: [Substring(line)]).first.map {
                HistoryEvent(t: $0.t, line: 1, $0.body)
            }, general, line)
        }
    }

    /// Numbers of every length (a time, an op, a view's version; `FixedLine.digits` reads eight at a time, then one
    /// by one, up to 18) read as the scanner reads them, or are left to it.
    func testNumbersOfEveryLengthReadAsTheScannerReadsThem() throws {
        for length in 1...21 {
            let n = String((0..<length).map { Character(String(($0 * 3 + 1) % 10)) })
            let view = #"{"id":"c","version":"# + n + #","ended":false,"members":[{"device":"d","state":"joined"}]}"#
            for line in [#"{"t":"# + n + #","type":"complete","op":7,"outcome":"ok","conversation":"c"}"#,
                         #"{"t":5,"type":"complete","op":"# + n + #","outcome":"ok","conversation":"c"}"#,
                         #"{"t":5,"type":"complete","op":"# + n + "}",
                         #"{"t":5,"type":"push","device":"d","event":"voip","conversation":"c","view":"# + view + "}"] {
                guard let fast = fast(line) else { continue }
                XCTAssertEqual(fast, try general(line), line)
            }
        }
    }

    func testLinesInAnyOtherShapeAreLeftToTheScanner() {
        let view = #"{"id":"c","version":1,"ended":false,"members":[{"device":"d","state":"joined"}]}"#
        let others = [
            #"{"t":1,"type":"push","device":"d","event":"voip","conversation":"c","view":"# +
                view.replacingOccurrences(of: "\"version\":1", with: "\"version\":-1") + "}",
            #"{"t":1,"type":"push","device":"d","event":"voip","conversation":"c","view":"# +
                view.replacingOccurrences(of: "joined", with: "dancing") + "}",
            #"{"t":1,"type":"push","device":"d","event":"voip","conversation":"c","view":"# +
                view.replacingOccurrences(of: "\"ended\":false,", with: "") + "}",
            #"{"t":1,"type":"push","device":"d","event":"voip","conversation":"c","view":"# +
                view.replacingOccurrences(of: "]}", with: "],\"capabilities\":{}}") + "}",
            #"{"t":1,"type":"push","event":"voip","device":"d","conversation":"c"}"#,
            #"{"t":1,"type":"push","device":"d","event":"voip"}"#,
            #"{"t":1,"type":"final","device":"d","conversation":"c","local":{"state":"left","members":[],"active":[]},"server":"# +
                view + "}",
            #"{"t":1,"type":"final","device":"d","conversation":"c","server":"# + view +
                #","local":{"state":"left","members":["a" ],"active":[]}}"#,
            #"{"t":1,"type":"complete","op":1,"outcome":"ok","view":"# + view + #","conversation":"c"}"#,
        ]
        for line in others { XCTAssertNil(fast(line), line) }
        // Read by the scanner as before.
        XCTAssertEqual(try general(others[4])?.body, .push(Push(device: "d", event: .voip, conversation: "c")))
        XCTAssertThrowsError(try general(others[1]))
    }
}
