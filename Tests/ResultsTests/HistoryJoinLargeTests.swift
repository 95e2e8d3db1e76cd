import Foundation
import XCTest
@testable import Results
import TestSupport

/// The join gives a mapped file's pages back behind it (`HistoryJoin.DropBehind`): a history several times its
/// step joins to the same bytes, lines found out of order further back than its margin included.
final class HistoryJoinLargeTests: XCTestCase {
    private var run: URL!

    override func setUpWithError() throws {
        run = TemporaryDirectory.path("history-large")
        try FileManager.default.createDirectory(at: WorkerJournal.rawDirectory(run), withIntermediateDirectories: true)
    }

    override func tearDown() { TemporaryDirectory.remove(run) }

    private func line(_ t: UInt64, _ n: Int) -> String {
        "{\"t\":\(t),\"n\":\(n),\"pad\":\"" + String(repeating: "x", count: 80) + "\"}"
    }

    /// ~14 MiB per worker: every 1,000th line's time is one that belongs ~3 MiB earlier (far behind the margin).
    private func lines(worker: Int) -> [(t: UInt64, text: String)] {
        (0..<140_000).map { n in
            let t = n % 1_000 == 999 ? UInt64(max(0, n - 30_000)) * 10 + 1 : UInt64(n) * 10 + UInt64(worker) * 5
            return (t, line(t, n))
        }
    }

    private func check(workers: Int) throws {
        var all: [(t: UInt64, worker: Int, n: Int, text: String)] = []
        for w in 0..<workers {
            let mine = lines(worker: w)
            let url = WorkerJournal.rawDirectory(run).appendingPathComponent("history-w\(w).jsonl")
            let bytes = Data(mine.map(\.text).joined(separator: "\n").appending("\n").utf8)
            XCTAssertGreaterThan(bytes.count, 2 * (HistoryJoin.DropBehind.step + HistoryJoin.DropBehind.margin))
            try bytes.write(to: url)
            all += mine.enumerated().map { ($0.element.t, w, $0.offset, $0.element.text) }
        }
        try RunResults.joinHistory(run: run)
        let expected = all.sorted { ($0.t, $0.worker, $0.n) < ($1.t, $1.worker, $1.n) }.map(\.text)
        let joined = try String(contentsOf: run.appendingPathComponent("history.jsonl"), encoding: .utf8)
        XCTAssertEqual(joined, expected.joined(separator: "\n") + "\n")
    }

    func testOneLargeFileJoinsToTheSameBytesWithItsPagesGivenBack() throws { try check(workers: 1) }

    func testTwoLargeFilesMergeToTheSameBytesWithTheirPagesGivenBack() throws { try check(workers: 2) }
}
