import Foundation
import Metrics
import XCTest
@testable import Results

/// A snapshot as `RecorderCheckpointer` writes it is read without JSONDecoder (`SnapshotFile.readWritten`) into
/// the same segments and recorder JSONDecoder reads; anything else is left to JSONDecoder (nil).
final class SnapshotReadTests: XCTestCase {
    private func recorder() -> Recorder {
        var recorder = Recorder(runStartNanos: 2_000_000_000)
        for (k, micros) in [3, 480, 77_000].enumerated() {
            recorder.record(Metric(named: "sip.setup"), micros: Int64(micros), atNanos: 2_000_000_000 + UInt64(k) << 28)
        }
        recorder.count(Metric(named: "calls.completed"), by: 2, atNanos: 2_500_000_000)
        recorder.gauge("harness.rss_mib", value: 41.5, atNanos: 2_000_000_000)
        return recorder
    }

    private func snapshot(segments: Int) throws -> [UInt8] {
        try XCTUnwrap(RecorderCheckpointer.encoded("segments", segments, recorder().image))
    }

    func testAWrittenSnapshotReadsAsJSONDecoderReadsIt() throws {
        for segments in [0, 7, 123_456] {
            let bytes = try snapshot(segments: segments)
            let fast = try XCTUnwrap(bytes.withUnsafeBytes { SnapshotFile.readWritten($0) })
            let decoded = try JSONDecoder().decode(SnapshotFile.self, from: Data(bytes))
            XCTAssertEqual(fast.segments, segments)
            XCTAssertEqual(fast.segments, decoded.segments)
            XCTAssertEqual(fast.recorder, decoded.recorder)
            XCTAssertEqual(fast.recorder, recorder())
        }
    }

    func testOtherShapesAreLeftToJSONDecoder() throws {
        let text = String(decoding: try snapshot(segments: 3), as: UTF8.self)
        let others = [
            text.replacingOccurrences(of: "{\"segments\":3,", with: "{ \"segments\":3,"),
            text.replacingOccurrences(of: "{\"segments\":3,", with: "{\"segment\":3,"),
            text.replacingOccurrences(of: "{\"segments\":3,", with: "{\"segments\":-3,"),
            String(text.dropLast()),
            text + "\n",
        ]
        for other in others {
            XCTAssertNil(Array(other.utf8).withUnsafeBytes { SnapshotFile.readWritten($0) }, other)
        }
        // A bare recorder (`writeSnapshot`) has no segments: JSONDecoder's reading, as before.
        let bare = try JSONEncoder().encode(recorder())
        XCTAssertNil(bare.withUnsafeBytes { SnapshotFile.readWritten($0) })
        XCTAssertEqual(try JSONDecoder().decode(SnapshotFile.self, from: bare).segments, 0)
    }

    func testLoadRecorderReadsAWrittenSnapshotAndItsSegments() throws {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-read-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: run) }
        let raw = WorkerJournal.rawDirectory(run)
        try FileManager.default.createDirectory(at: raw, withIntermediateDirectories: true)
        let checkpointer = try RecorderCheckpointer(directory: raw, stem: "recorder-w0", keepSeconds: 0)
        var live = recorder()
        checkpointer.checkpoint(&live, second: 5)
        let whole = checkpointer.close(live)
        XCTAssertEqual(try RunResults.loadRecorder(run: run), whole)
    }
}
