import CallModel
import XCTest
@testable import Checker
import RunFormats

/// A fixed-shape line's texts (`FixedLine.skipText`): these pin that it finds the closing quote, refuses a text with
/// an escape or without its quote, and stays within the line, for texts of every length around the eight-byte steps
/// a word scan would take and ending at every distance from the line's end (so any faster scan is held to the same).
final class FixedLineTextTests: XCTestCase {
    /// `skipText` over `bytes` (after a text's opening quote) held in memory of exactly their size: where the cursor
    /// ends, nil for false.
    private func skipped(_ bytes: [UInt8]) -> Int? {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        defer { memory.deallocate() }
        memory.initialize(from: bytes, count: bytes.count)
        var cursor = FixedLine(base: memory, count: bytes.count)
        return cursor.skipText() ? cursor.pos : nil
    }

    /// What the two `memchr`s said: the first quote, and no backslash before it.
    private func expected(_ bytes: [UInt8]) -> Int? {
        guard let quote = bytes.firstIndex(of: 0x22), !bytes[..<quote].contains(0x5C) else { return nil }
        return quote + 1
    }

    func testTheClosingQuoteIsFoundAndEscapesRefusedAtEveryLengthAndEnd() {
        let fillers: [UInt8] = [0x61, 0x21, 0x23, 0x5B, 0x5D, 0x01, 0xC3, 0xFF]
        for length in 0...26 {
            for trailing in [[], [0x7D], Array("}\"x\\".utf8), Array(",\"sent\":true,\"message\":\"".utf8)] {
                let text = (0..<length).map { fillers[$0 % fillers.count] }
                let closed = text + [0x22] + trailing
                XCTAssertEqual(skipped(closed), length + 1, "\(length) \(trailing)")
                XCTAssertNil(skipped(text), "no quote \(length)")
                for position in 0..<length {
                    for special: UInt8 in [0x5C, 0x22] {
                        var bytes = closed
                        bytes[position] = special
                        XCTAssertEqual(skipped(bytes), expected(bytes), "\(length) \(position) \(special)")
                    }
                }
            }
        }
    }

    /// Lines the writer writes with texts of every length, plain, escaped and non-ASCII, read the same through
    /// the fast path as through the general scanner, or are left to it.
    func testSIPLinesOfEveryTextLengthReadAsTheScannerReadsThem() throws {
        var texts = TextTable()
        for length in 0...26 {
            for filler in ["a", "é", "\"", "\\", "\n"] {
                let text = String(repeating: "x", count: length) + (length % 3 == 0 ? filler : "")
                var bytes: [UInt8] = []
                HistoryText.sip(t: 1_764_787_200_123, device: text, conversation: "c-\(length)", sent: length % 2 == 0,
                                message: text, into: &bytes)
                let line = String(decoding: bytes, as: UTF8.self)
                let general = try XCTUnwrap(HistoryReader.parse(lines: ["{ " + line.dropFirst()]).first, line)
                let fast = bytes.withUnsafeBufferPointer {
                    HistoryReader.fixedLine($0, number: 1, texts: &texts)
                }
                if let fast { XCTAssertEqual(fast, general, line) }
                XCTAssertEqual(fast == nil, text.utf8.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } , line)
                XCTAssertEqual(try HistoryReader.parse(lines: [Substring(line)]).first, general, line)
            }
        }
    }
}
