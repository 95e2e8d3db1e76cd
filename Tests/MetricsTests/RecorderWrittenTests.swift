import Foundation
import XCTest
@testable import Metrics
import TextEscaping

/// `Recorder.readWritten` reads back what `appendJSON` wrote as `JSONDecoder` does, and gives up (nil) on any
/// other shape so the caller's `JSONDecoder` keeps deciding those.
final class RecorderWrittenTests: XCTestCase {
    private let start: UInt64 = 5_000_000_000_000

    private func filled() -> Recorder {
        var recorder = Recorder(runStartNanos: start)
        for (k, micros) in [1, 250, 9_999, 1_000_000, 0].enumerated() {
            recorder.record(Metric(named: "sip.setup"), micros: Int64(micros), atNanos: start + UInt64(k) * 400_000_000)
        }
        recorder.record(Metric(named: "fulfillment.start.sip-hold/dial"), micros: 77, atNanos: start + 3_000_000_000)
        recorder.count(Metric(named: "calls.completed"), by: 3, atNanos: start + 1_500_000_000)
        recorder.count(Metric(named: "calls.completed"), atNanos: start + 2_500_000_000)
        recorder.gauge("harness.cpu_percent", value: 12.5, atNanos: start)
        recorder.gauge("harness.rss_mib", value: 1e-05, atNanos: start + 1_000_000_000)
        recorder.gauge("harness.fds", value: -3, atNanos: start + 2_000_000_000)
        return recorder
    }

    private func written(_ recorder: Recorder) -> [UInt8] {
        var bytes: [UInt8] = []
        XCTAssertTrue(recorder.image.appendJSON(to: &bytes))
        return bytes
    }

    func testWrittenImageReadsBackAsJSONDecoderReadsIt() throws {
        for recorder in [filled(), Recorder(runStartNanos: start)] {
            let bytes = written(recorder)
            let fast = try XCTUnwrap(bytes.withUnsafeBufferPointer { Recorder.readWritten($0) })
            XCTAssertEqual(fast, try JSONDecoder().decode(Recorder.self, from: Data(bytes)))
            XCTAssertEqual(fast, recorder)
        }
    }

    func testAnyOtherShapeIsLeftToJSONDecoder() throws {
        let text = String(decoding: written(filled()), as: UTF8.self)
        let spaced = text.replacingOccurrences(of: "\"counters\":", with: "\"counters\": ")
        let escaped = text.replacingOccurrences(of: "calls.completed", with: "calls\\u002ecompleted")
        let cut = String(text.dropLast())
        for other in [spaced, escaped, cut, text + " "] {
            XCTAssertNil(Array(other.utf8).withUnsafeBufferPointer { Recorder.readWritten($0) }, other)
        }
        XCTAssertNoThrow(try JSONDecoder().decode(Recorder.self, from: Data(spaced.utf8)))
    }

    func testAnIntegerOf19DigitsIsLeftToJSONDecoder() throws {
        var recorder = Recorder(runStartNanos: start)
        recorder.count(Metric(named: "calls.completed"), by: 1_000_000_000_000_000_000, atNanos: start)
        let bytes = written(recorder)
        XCTAssertNil(bytes.withUnsafeBufferPointer { Recorder.readWritten($0) })
        XCTAssertEqual(try JSONDecoder().decode(Recorder.self, from: Data(bytes)), recorder)
    }

    /// A histogram's slots and counts are written into scratch memory with their own digit writer: the text is the
    /// integers as `JSONText.appendInteger` writes them, joined by commas, for any length and any value.
    func testIntegerArraysAreTheDigitsJSONTextWritesAcrossChunks() {
        let edges: [Int64] = [0, 9, 10, 99, 100, 999, 1_000, 9_999, 10_000, 65_535, -1, -10, Int64.max, Int64.min]
        for count in [0, 1, 63, 64, 65, 130, 200] {
            let wide = (0..<count).map { edges[$0 % edges.count] &* Int64($0 % 3 == 0 ? 1 : 7) }
            let narrow = wide.map { Int32(truncatingIfNeeded: $0) }
            var expected: [UInt8] = [91], expectedNarrow: [UInt8] = [91]
            for (i, v) in wide.enumerated() {
                if i > 0 { expected.append(44); expectedNarrow.append(44) }
                JSONText.appendInteger(v, to: &expected)
                JSONText.appendInteger(Int64(narrow[i]), to: &expectedNarrow)
            }
            expected.append(93); expectedNarrow.append(93)
            var w = JSONBytes(out: [0x41])
            w.array(wide)
            XCTAssertEqual(w.out, [0x41] + expected, "\(count)")
            var n = JSONBytes(out: [])
            n.array(narrow)
            XCTAssertEqual(n.out, expectedNarrow, "\(count)")
        }
    }
}
