import Foundation
import XCTest
@testable import Metrics

/// `Recorder.readWritten` makes a metric name's `String` from its bytes: ASCII directly, anything else validated as
/// UTF-8 (invalid bytes give nil, and the caller's JSONDecoder decides), as `String(validating:)` always did.
final class RecorderWrittenKeysTests: XCTestCase {
    private func written(_ recorder: Recorder) -> [UInt8] {
        var bytes: [UInt8] = []
        XCTAssertTrue(recorder.image.appendJSON(to: &bytes))
        return bytes
    }

    func testNonASCIIMetricNamesReadBackAsJSONDecoderReadsThem() throws {
        var recorder = Recorder(runStartNanos: 1_000_000_000)
        recorder.record(Metric(named: "join.fulfillment@café/answer"), micros: 12, atNanos: 1_000_000_000)
        recorder.count(Metric(named: "calls.started"), atNanos: 1_000_000_000)
        let bytes = written(recorder)
        let fast = try XCTUnwrap(bytes.withUnsafeBufferPointer { Recorder.readWritten($0) })
        XCTAssertEqual(fast, try JSONDecoder().decode(Recorder.self, from: Data(bytes)))
        XCTAssertEqual(fast.histograms["join.fulfillment@café/answer"]?.totalCount, 1)
    }

    func testAKeyThatIsNotUTF8IsLeftToJSONDecoder() {
        var recorder = Recorder(runStartNanos: 1_000_000_000)
        recorder.count(Metric(named: "calls.sta\u{e9}rted"), atNanos: 1_000_000_000)
        var bytes = written(recorder)
        // "é" is C3 A9; C3 followed by a byte that is not a continuation is not UTF-8.
        let at = try? XCTUnwrap(bytes.firstIndex(of: 0xA9))
        bytes[at!] = 0x41
        XCTAssertNil(bytes.withUnsafeBufferPointer { Recorder.readWritten($0) })
    }

    /// Found by the `recorder` fuzz target: a second written twice in one histogram's intervals read back as the
    /// last of the two, where JSONDecoder keeps another, so `callstorm report DIR` could rebuild different figures
    /// from a hand-edited file depending on which reader took it. A repeated key is now JSONDecoder's to read.
    func testARepeatedSecondOrNameIsLeftToJSONDecoder() throws {
        var recorder = Recorder(runStartNanos: 1_000_000_000)
        recorder.record(Metric(named: "scheduler_lag"), micros: 12, atNanos: 1_500_000_000)
        recorder.record(Metric(named: "scheduler_lag"), micros: 40, atNanos: 2_500_000_000)
        recorder.count(Metric(named: "calls.started"), atNanos: 1_000_000_000)
        let bytes = written(recorder)
        XCTAssertTrue(bytes.withUnsafeBufferPointer { Recorder.readWritten($0) } != nil)
        let text = String(decoding: bytes, as: UTF8.self)
        // Seconds 0 and 1 of the one histogram's intervals (in either order) become 1 and 1.
        let twiceSecond = text.replacingOccurrences(of: "\"0\":{\"lowestDiscernibleValue\"",
                                                    with: "\"1\":{\"lowestDiscernibleValue\"")
        XCTAssertNotEqual(twiceSecond, text, "the intervals key this test rewrites")
        XCTAssertTrue(Array(twiceSecond.utf8).withUnsafeBufferPointer { Recorder.readWritten($0) } == nil)
        let twiceName = text.replacingOccurrences(of: "\"counters\":{\"calls.started\":1",
                                                  with: "\"counters\":{\"calls.started\":1,\"calls.started\":2")
        XCTAssertNotEqual(twiceName, text, "the counters object this test rewrites")
        XCTAssertTrue(Array(twiceName.utf8).withUnsafeBufferPointer { Recorder.readWritten($0) } == nil)
    }
}
