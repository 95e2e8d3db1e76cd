import Foundation
import Metrics
import XCTest
@testable import Results
import TestSupport

/// The follower reads a growing run as `loadRecorder` reads it, at every checkpoint, parsing only what was appended.
final class RecorderFollowerTests: XCTestCase {
    private var run: URL!
    private var raw: URL { WorkerJournal.rawDirectory(run) }

    override func setUpWithError() throws {
        run = TemporaryDirectory.path("follower")
        try FileManager.default.createDirectory(at: raw, withIntermediateDirectories: true)
    }

    override func tearDown() { TemporaryDirectory.remove(run) }

    private func recordSecond(_ second: Int, into recorder: inout Recorder) {
        let at = UInt64(second) * 1_000_000_000 + 500_000_000
        for i in 0..<4 {
            recorder.record(Metric(named: "push_to_report"), micros: Int64(100 + second * 5 + i), atNanos: at)
        }
        recorder.count(Metric(named: "calls.started"), by: Int64(second % 7 + 1), atNanos: at)
        recorder.gauge("conversations.active", value: Double(second % 11), atNanos: at)
    }

    func testEveryReadOfAGrowingRunEqualsAWholeLoadOfIt() throws {
        let workers = try (0..<2).map { try RecorderCheckpointer(directory: raw, stem: "recorder-w\($0)") }
        var live = [Recorder(runStartNanos: 0), Recorder(runStartNanos: 0)]
        let follower = RecorderFollower(run: run)
        var reads = 0
        for second in 0..<120 {
            for w in 0..<2 { recordSecond(second + w * 3, into: &live[w]) }
            guard second % 2 == 0, second > 0 else { continue }
            for w in 0..<2 {
                workers[w].checkpoint(&live[w], second: second)
                workers[w].flush()
            }
            if second % 6 == 0 {  // some checkpoints are read, some are not: the follower catches up either way
                XCTAssertEqual(try follower.load(), try RunResults.loadRecorder(run: run), "second \(second)")
                reads += 1
            }
        }
        XCTAssertEqual(reads, 19)
        XCTAssertGreaterThan(live[0].intervals["push_to_report"]?.count ?? 0, 0)
    }

    func testASnapshotCountingAMissingSegmentIsAnErrorAndTheNextReadStartsThatFileAgain() throws {
        let files = try RecorderCheckpointer(directory: raw, stem: "recorder-w0")
        var live = Recorder(runStartNanos: 0)
        for second in 0..<20 { recordSecond(second, into: &live) }
        files.checkpoint(&live, second: 10)
        files.flush()
        let follower = RecorderFollower(run: run)
        XCTAssertEqual(try follower.load(), try RunResults.loadRecorder(run: run))
        // The file moved away: the checkpointer's descriptor follows it, so the next segment lands there too.
        let away = files.segmentsURL.appendingPathExtension("away")
        try FileManager.default.moveItem(at: files.segmentsURL, to: away)
        for second in 20..<30 { recordSecond(second, into: &live) }
        files.checkpoint(&live, second: 26)
        files.flush()
        XCTAssertThrowsError(try follower.load()) { error in
            XCTAssertTrue("\(error)".contains(files.segmentsURL.lastPathComponent), "\(error)")
        }
        // Back whole (the first segment and the one appended after it): read from its start again.
        try FileManager.default.moveItem(at: away, to: files.segmentsURL)
        XCTAssertEqual(try follower.load(), try RunResults.loadRecorder(run: run))
    }
}
