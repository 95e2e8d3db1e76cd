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
}
