import Foundation
import XCTest
@testable import Checker
import HistoryLoading
import TestSupport

/// `HistoryReader.read(contentsOf:)` reads a file a piece at a time (`HistoryReader.Pieces`) rather than mapping it
/// whole: these pin that any piece size gives what parsing the whole file's bytes at once gives, lines split across
/// reads, a line longer than a piece, a last line without its newline, and a malformed line's number included.
final class HistoryReaderPiecesTests: XCTestCase {
    static let lines = [
        #"{"t":1,"type":"invoke","op":1,"device":"dev-0","kind":"start","call":0,"step":"dial"}"#,
        #"{"t":2,"type":"sip","device":"dev-0","conversation":"1l5e9jnjj46@127.0.0.1","sent":true,"message":"INVITE"}"#,
        "",
        #"{"t":3,"type":"complete","op":1,"outcome":"ok","conversation":"1l5e9jnjj46@127.0.0.1"}"#,
        #"{"t":4,"type":"dialog","device":"dev-0","conversation":"1l5e9jnjj46@127.0.0.1","state":"early","call":0}"#,
        #"{"t":5,"type":"invoke","op":2,"device":"dev-1","kind":"join","conversation":"1l5e9jnjj46@127.0.0.1","#
            + #""step":""# + String(repeating: "s", count: 300) + #""}"#,
        #"{"t":6,"type":"stop"}"#,
    ]

    private func whole(_ text: String, sipMessages: Bool) throws -> [HistoryEvent] {
        try Array(text.utf8).withUnsafeBufferPointer { try HistoryReader.parse(buffer: $0, sipMessages: sipMessages) }
    }

    private func file(_ text: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("history.jsonl")
        try Data(text.utf8).write(to: url)
        return url
    }

    func testEveryPieceSizeReadsWhatTheWholeBytesParseTo() throws {
        let dir = try TemporaryDirectory.make("pieces")
        defer { TemporaryDirectory.remove(dir) }
        for text in [Self.lines.joined(separator: "\n") + "\n", Self.lines.joined(separator: "\n")] {
            let url = try file(text, in: dir)
            for sipMessages in [true, false] {
                let expected = try whole(text, sipMessages: sipMessages)
                XCTAssertEqual(expected.count, 6)
                for piece in [1, 2, 7, 64, 97, 301, 4_096, HistoryReader.pieceBytes] {
                    let read = try HistoryReader.read(contentsOf: url, sipMessages: sipMessages, pieceBytes: piece)
                    XCTAssertEqual(read, expected, "piece \(piece), sipMessages \(sipMessages)")
                }
            }
        }
    }

    func testAMalformedLineIsNamedByItsNumberWhateverThePieceSize() throws {
        let dir = try TemporaryDirectory.make("pieces")
        defer { TemporaryDirectory.remove(dir) }
        let text = Self.lines.joined(separator: "\n") + "\n" + #"{"t":7,"type":"Stop"}"# + "\n"
        let url = try file(text, in: dir)
        var expected: HistoryError?
        do { _ = try whole(text, sipMessages: true) } catch { expected = error as? HistoryError }
        guard case .malformed(let line, _, _)? = expected else { return XCTFail("\(String(describing: expected))") }
        XCTAssertEqual(line, 8)
        for piece in [1, 5, 64, 4_096] {
            XCTAssertThrowsError(try HistoryReader.read(contentsOf: url, pieceBytes: piece)) {
                XCTAssertEqual($0 as? HistoryError, expected, "piece \(piece)")
            }
        }
    }
}
