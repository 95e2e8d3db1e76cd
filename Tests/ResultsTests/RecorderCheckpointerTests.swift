import Foundation
import Metrics
import XCTest
@testable import Results
import TestSupport

final class RecorderCheckpointerTests: XCTestCase {
    private var run: URL!
    private var raw: URL { WorkerJournal.rawDirectory(run) }

    override func setUpWithError() throws {
        run = TemporaryDirectory.path("checkpointer")
        try FileManager.default.createDirectory(at: raw, withIntermediateDirectories: true)
    }

    override func tearDown() { TemporaryDirectory.remove(run) }

    /// One second of a busy worker: two latency metrics, a counter and a gauge.
    private func recordSecond(_ second: Int, into recorder: inout Recorder) {
        let at = UInt64(second) * 1_000_000_000 + 500_000_000
        for i in 0..<5 {
            recorder.record(Metric(named: "push_to_report"), micros: Int64(100 + second * 7 + i), atNanos: at)
            recorder.record(Metric(named: "action.join"), micros: Int64(2_000 + i * second), atNanos: at)
        }
        recorder.count(Metric(named: "calls.started"), by: 3, atNanos: at)
        recorder.gauge("conversations.active", value: Double(second % 17), atNanos: at)
    }

    private func waitForSnapshot(_ url: URL) {
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: url.path) { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// The point of segments: twenty minutes of seconds leave the recorder holding only the last few, and the run
    /// directory still gives back every second, equal to a recorder that kept them all.
    func testLongRunSecondsLeaveMemoryAndComeBackWhole() throws {
        let files = try RecorderCheckpointer(directory: raw, stem: "recorder-w0")
        var live = Recorder(runStartNanos: 0)
        var reference = Recorder(runStartNanos: 0)
        for second in 0..<1200 {
            recordSecond(second, into: &live)
            recordSecond(second, into: &reference)
            if second % 2 == 0 {
                files.checkpoint(&live, second: second)
                XCTAssertLessThanOrEqual(live.intervals["push_to_report"]?.count ?? 0, 3)
                XCTAssertLessThanOrEqual(live.counterSeries("calls.started").count, 3)
                XCTAssertLessThanOrEqual(live.gaugeSeries("conversations.active").count, 3)
            }
        }
        XCTAssertEqual(live.histograms, reference.histograms, "totals never leave")
        let whole = files.close(live)
        XCTAssertEqual(whole, reference)
        XCTAssertEqual(try RunResults.loadRecorder(run: run), reference)
        let totalsOnly = try RunResults.loadRecorder(run: run, series: false)
        XCTAssertEqual(totalsOnly.counters, reference.counters)
        XCTAssertLessThan(totalsOnly.intervals["push_to_report"]?.count ?? 0, 5)
    }

    /// A kill between appending a segment and renaming the snapshot that counts it leaves the older snapshot,
    /// which still holds those seconds itself: the newer segment must be ignored, not counted twice.
    func testASegmentWrittenAfterTheSnapshotOnDiskIsNotCountedTwice() throws {
        let files = try RecorderCheckpointer(directory: raw, stem: "recorder-w0")
        var live = Recorder(runStartNanos: 0)
        for second in 0..<10 { recordSecond(second, into: &live) }
        let atFirstCheckpoint = live
        files.checkpoint(&live, second: 6)
        files.flush()
        let olderSnapshot = try Data(contentsOf: files.snapshotURL)
        for second in 10..<20 { recordSecond(second, into: &live) }
        files.checkpoint(&live, second: 18)
        files.flush()
        var segments = 0
        try RunResults.readSegments(files.segmentsURL, upTo: 2) { _ in segments += 1 }
        XCTAssertEqual(segments, 2)
        // The kill: segment 2 is on disk, but the snapshot is still the one that counts segment 1 only.
        try olderSnapshot.write(to: files.snapshotURL)
        XCTAssertEqual(try RunResults.loadRecorder(run: run), atFirstCheckpoint)
    }

    /// A segment line cut by a kill (no newline) is beyond what the snapshot counts and is ignored; a snapshot
    /// counting a segment that is not there is an error naming the file, not a silently shorter series.
    func testACutSegmentLineIsIgnoredAndAMissingOneIsAnError() throws {
        let files = try RecorderCheckpointer(directory: raw, stem: "recorder-w0")
        var live = Recorder(runStartNanos: 0)
        for second in 0..<10 { recordSecond(second, into: &live) }
        let reference = live
        let whole = files.close(live)
        XCTAssertEqual(whole, reference)
        let handle = try FileHandle(forWritingTo: files.segmentsURL)
        handle.seekToEndOfFile()
        handle.write(Data("{\"segment\":9,\"recorder\":{\"runSt".utf8))
        try handle.close()
        XCTAssertEqual(try RunResults.loadRecorder(run: run), reference)

        var snapshot = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: files.snapshotURL)) as? [String: Any])
        XCTAssertEqual(snapshot["segments"] as? Int, 0)
        snapshot["segments"] = 3
        try JSONSerialization.data(withJSONObject: snapshot).write(to: files.snapshotURL)
        XCTAssertThrowsError(try RunResults.loadRecorder(run: run)) { error in
            XCTAssertTrue("\(error)".contains("recorder-w0.segments.jsonl"), "\(error)")
        }
    }
    /// The hand-written checkpoint JSON reads back as the same recorder `JSONEncoder`'s does, names that need
    /// escaping, awkward doubles and negative and 19-digit integers included.
    func testHandWrittenCheckpointJSONReadsBackAsJSONEncodersDoes() throws {
        var recorder = Recorder(runStartNanos: 123)
        for second in 0..<4 { recordSecond(second, into: &recorder) }
        recorder.record(Metric(named: "we\"ird\\name\u{1}é"), micros: 77, atNanos: 2_100_000_000)
        recorder.count(Metric(named: "c\"q"), by: 9, atNanos: 1_000_000_000)
        recorder.count(Metric(named: "signed"), by: -1_234_567, atNanos: 3_000_000_000)
        recorder.count(Metric(named: "wide"), by: Int64.max - 7, atNanos: 3_000_000_000)
        for (i, value) in [0.1, 1e-7, 1e20, -0.0, 97.125, 5].enumerated() {
            recorder.gauge("g", value: value, atNanos: UInt64(i) * 1_000_000_000)
        }
        _ = recorder.detachSeries(before: 2)  // totals without some seconds, as a snapshot has them
        let image = recorder.image
        let bytes = try XCTUnwrap(RecorderCheckpointer.encoded("segments", 4, image))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        XCTAssertEqual(object["segments"] as? Int, 4)
        let recorderJSON = try JSONSerialization.data(withJSONObject: try XCTUnwrap(object["recorder"]))
        let mine = try JSONDecoder().decode(Recorder.self, from: recorderJSON)
        let theirs = try JSONDecoder().decode(Recorder.self, from: JSONEncoder().encode(image))
        XCTAssertEqual(mine, theirs)
        XCTAssertEqual(mine, recorder)

    }
    /// `close` adds back the segments it kept in memory while they fit its limit, and reads the file once they
    /// did not: either way the whole recorder, the same as the one the run directory gives back.
    func testCloseGivesTheWholeRecorderFromHeldSegmentsOrFromTheFile() throws {
        for limit in [0, 40, 500_000] {
            let stem = "recorder-w\(limit)"
            let files = try RecorderCheckpointer(directory: raw, stem: stem, heldSlotLimit: limit)
            var live = Recorder(runStartNanos: 0)
            var reference = Recorder(runStartNanos: 0)
            for second in 0..<40 {
                recordSecond(second, into: &live)
                recordSecond(second, into: &reference)
                if second % 2 == 0 { files.checkpoint(&live, second: second) }
            }
            // A late sample for a second already written: its segment and the held one must agree.
            live.record(Metric(named: "push_to_report"), micros: 9_999, atNanos: 3_000_000_000)
            reference.record(Metric(named: "push_to_report"), micros: 9_999, atNanos: 3_000_000_000)
            files.checkpoint(&live, second: 40)
            XCTAssertEqual(files.close(live), reference, "limit \(limit)")
            var fromDisk = Recorder(runStartNanos: 0)
            let snapshot = try Data(contentsOf: files.snapshotURL)
            let count = try XCTUnwrap((JSONSerialization.jsonObject(with: snapshot) as? [String: Any])?["segments"]
                as? Int)
            try RunResults.readSegments(files.segmentsURL, upTo: count) { fromDisk.merge($0) }
            var whole = live
            whole.merge(fromDisk)
            XCTAssertEqual(whole, reference, "limit \(limit): the file holds the same seconds")
        }
    }
}
