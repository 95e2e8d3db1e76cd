import Determinism
import Foundation
import XCTest
@testable import Results
import TestSupport

final class HistoryJoinTests: XCTestCase {
    private var run: URL!

    override func setUpWithError() throws {
        run = TemporaryDirectory.path("history")
        try FileManager.default.createDirectory(at: WorkerJournal.rawDirectory(run), withIntermediateDirectories: true)
    }

    override func tearDown() { TemporaryDirectory.remove(run) }

    private func write(_ text: String, worker: Int) throws {
        let url = WorkerJournal.rawDirectory(run).appendingPathComponent("history-w\(worker).jsonl")
        try Data(text.utf8).write(to: url)
    }

    private func joined() throws -> String {
        try String(contentsOf: run.appendingPathComponent("history.jsonl"), encoding: .utf8)
    }

    private func line(_ t: UInt64, _ tag: String) -> String { "{\"t\":\(t),\"tag\":\"\(tag)\"}" }

    func testJoinInterleavesWorkersByTimeWithTiesInWorkerOrder() throws {
        try write([line(1, "a"), line(3, "b"), line(3, "c"), line(5, "d")].joined(separator: "\n") + "\n", worker: 0)
        try write([line(2, "e"), line(3, "f"), line(6, "g")].joined(separator: "\n") + "\n", worker: 1)
        try RunResults.joinHistory(run: run)
        let expected = [line(1, "a"), line(2, "e"), line(3, "b"), line(3, "c"), line(3, "f"), line(5, "d"),
                        line(6, "g")]
        XCTAssertEqual(try joined(), expected.joined(separator: "\n") + "\n")
    }

    func testJoinSortsAWorkerFileFoundOutOfOrderKeepingTiesInLineOrder() throws {
        try write([line(5, "a"), line(1, "b"), line(5, "c"), line(1, "d")].joined(separator: "\n") + "\n", worker: 0)
        try write(line(1, "e") + "\n", worker: 1)
        try RunResults.joinHistory(run: run)
        let expected = [line(1, "b"), line(1, "d"), line(1, "e"), line(5, "a"), line(5, "c")]
        XCTAssertEqual(try joined(), expected.joined(separator: "\n") + "\n")
    }

    func testJoinKeepsALastLineCutByAKillAndDropsEmptyLines() throws {
        try write(line(1, "a") + "\n\n" + line(4, "b") + "\n" + "{\"t\":9,\"ty", worker: 0)
        try write("", worker: 1)
        try write("\n" + line(2, "c") + "\n", worker: 2)
        try RunResults.joinHistory(run: run)
        XCTAssertEqual(try joined(), [line(1, "a"), line(2, "c"), line(4, "b"), "{\"t\":9,\"ty"]
            .joined(separator: "\n") + "\n")
    }

    func testALineWithoutATimeSortsFirstAsTimeZero() throws {
        try write(line(3, "a") + "\nnot json\n", worker: 0)
        let overflow = "{\"t\":99999999999999999999999,\"tag\":\"overflow\"}"
        try write(overflow + "\n", worker: 1)
        try RunResults.joinHistory(run: run)
        XCTAssertEqual(try joined(), ["not json", overflow, line(3, "a")]
            .joined(separator: "\n") + "\n")
    }

    func testJoinEqualsAStableSortOfAllLinesForRandomWorkerFiles() throws {
        var generator = SeededRandom(splitMix: 42)
        var all: [(t: UInt64, line: String)] = []
        for worker in 0..<5 {
            var t: UInt64 = 0
            var lines: [String] = []
            // Worker 3 writes out of order; the others in order, with many ties across workers.
            for i in 0..<(200 + worker * 37) {
                t = worker == 3 ? generator.next() % 50 : t + generator.next() % 3
                let text = line(t, "w\(worker)-\(i)" + String(repeating: "x", count: Int(generator.next() % 40)))
                lines.append(text)
                all.append((t, text))
            }
            try write(lines.joined(separator: "\n") + "\n", worker: worker)
        }
        try RunResults.joinHistory(run: run)
        let expected = all.indices.sorted { all[$0].t != all[$1].t ? all[$0].t < all[$1].t : $0 < $1 }
            .map { all[$0].line }
        XCTAssertEqual(try joined(), expected.joined(separator: "\n") + "\n")
    }

    func testJoinReplacesAnEarlierHistoryAndLeavesNoTemporaryFile() throws {
        try Data("old\n".utf8).write(to: run.appendingPathComponent("history.jsonl"))
        try write(line(1, "new") + "\n", worker: 0)
        try RunResults.joinHistory(run: run)
        XCTAssertEqual(try joined(), line(1, "new") + "\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.appendingPathComponent("history.jsonl.tmp").path))
    }

    func testWriteHistoryOrdersByTimeKeepingTiesInTheOrderGiven() throws {
        let lines: [(t: UInt64, line: String)] = [(3, "c"), (1, "a"), (3, "d"), (1, "b"), (2, "x")]
        try RunResults.writeHistory(lines, run: run)
        XCTAssertEqual(try joined(), "a\nb\nx\nc\nd\n")
    }

    func testAHistoryLargerThanTheWriteBufferIsWrittenWhole() throws {
        let lines = (0..<30_000).map { line(UInt64($0), String(repeating: "y", count: 60)) }
        try write(lines.joined(separator: "\n") + "\n", worker: 0)
        try RunResults.joinHistory(run: run)
        XCTAssertEqual(try joined(), lines.joined(separator: "\n") + "\n")
    }

    /// One worker's file, as a one-worker run writes it: lines a few places early are moved back one by one, and a
    /// file far out of order (more moves than the insertion's budget) is sorted whole; both equal a stable sort.
    func testOneWorkerFileComesOutAsAStableSortByTimeNearlyInOrderOrNot() throws {
        var generator = SeededRandom(splitMix: 7)
        for spread in [UInt64(3), 100_000] {
            var lines: [(t: UInt64, line: String)] = []
            var t: UInt64 = 1_000
            for i in 0..<20_000 {
                t += generator.next() % 5
                let early = t - min(t, generator.next() % spread)
                lines.append((early, line(early, "l\(i)")))
            }
            try write(lines.map(\.line).joined(separator: "\n") + "\n", worker: 0)
            try RunResults.joinHistory(run: run)
            let expected = lines.indices.sorted { lines[$0].t != lines[$1].t ? lines[$0].t < lines[$1].t : $0 < $1 }
                .map { lines[$0].line }
            XCTAssertEqual(try joined(), expected.joined(separator: "\n") + "\n", "spread \(spread)")
        }
    }

    func testTimesOfNineteenAndTwentyDigitsReadAsBeforeTheFastPath() throws {
        // 19 digits read unchecked; 20 that fit in 64 bits are read, 20 that do not (and more) read as 0.
        let big = "{\"t\":18446744073709551615,\"tag\":\"max\"}"
        let over = "{\"t\":18446744073709551616,\"tag\":\"over\"}"
        let nineteen = "{\"t\":9999999999999999999,\"tag\":\"19\"}"
        try write([big, nineteen, over, line(5, "a")].joined(separator: "\n") + "\n", worker: 0)
        try RunResults.joinHistory(run: run)
        XCTAssertEqual(try joined(), [over, line(5, "a"), nineteen, big].joined(separator: "\n") + "\n")
    }

    /// `HistoryJoin.time` as it read before its two-loads fast path: digit by digit, 0 on overflow.
    private func slowTime(_ bytes: [UInt8]) -> UInt64 {
        var t: UInt64 = 0
        for b in bytes.dropFirst(5) {
            guard b >= 0x30, b <= 0x39 else { break }
            let (times10, o1) = t.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(b - 0x30))
            if o1 || o2 { return 0 }
            t = sum
        }
        return t
    }

    func testTimeReadsEveryLengthOfDigitsAndWhatFollowsThemAsDigitByDigit() {
        // Every count of digits 0...22, followed by each kind of byte a line may have there (the comma, the end,
        // bytes around the digits' range, high bytes that carry), in lines long enough for the fast path and not.
        var rng = SeededRandom(seed: 54)
        let after: [UInt8] = [0x2C, 0x2F, 0x3A, 0x3F, 0x20, 0x00, 0x7F, 0xFA, 0xFF, 0x40, 0x29]
        for digits in 0...22 {
            for next in after {
                for pad in [0, 1, 7, 8, 16, 40] {
                    var bytes = Array("{\"t\":".utf8)
                    for k in 0..<digits { bytes.append(0x30 + UInt8(k == 0 ? rng.next() % 9 + 1 : rng.next() % 10)) }
                    bytes.append(next)
                    for _ in 0..<pad { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
                    let got = bytes.withUnsafeBufferPointer { HistoryJoin.time($0.baseAddress!, 0, $0.count) }
                    XCTAssertEqual(got, slowTime(bytes), "\(digits) digits, then \(next), \(pad) more bytes")
                }
            }
        }
    }
}
