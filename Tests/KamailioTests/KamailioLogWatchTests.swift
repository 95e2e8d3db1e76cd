import Foundation
@testable import Kamailio
import TestSupport
import XCTest

/// Kamailio's log read for its own limits: the lines Kamailio 5.6 writes when a pool runs out, counted by pool,
/// from a file that is still being written (a line is counted once it is whole).
final class KamailioLogWatchTests: XCTestCase {
    // Written by Kamailio 5.6.3 with -m 4 under a flood of INVITEs (2026-12-05), and its pkg counterpart.
    static let shm = " 5(3361) ERROR: tm [h_table.c:300]: build_cell(): could not allocate shared memory from shm pool"
    static let newT = " 5(3361) ERROR: tm [t_lookup.c:1284]: new_t(): out of mem:"
    static let pkg = " 2(3358) ERROR: <core> [core/parser/msg_parser.c:611]: parse_headers(): could not allocate "
        + "private memory from pkg pool"
    static let ordinary = " 1(3357) ERROR: tm [tm.c:1340]: ki_t_reply(): cannot send a t_reply to a message for "
        + "which no T-state has been established"

    func testMemoryLinesAreCountedByPoolAndOthersAreNot() {
        var findings = KamailioLogFindings()
        findings.read(text: [Self.shm, Self.newT, Self.shm, Self.ordinary, " 0(1) INFO: out of memory? no",
                             Self.pkg].joined(separator: "\n"))
        XCTAssertEqual(findings.sharedMemory, 2)
        XCTAssertEqual(findings.unnamedMemory, 1)
        XCTAssertEqual(findings.privateMemory, 1)
        XCTAssertEqual(findings.memoryLines, 4)
        XCTAssertTrue(findings.exhausted)
        XCTAssertEqual(findings.firstLines, [Self.shm, Self.newT, Self.pkg], "the first line of each kind")
        var clean = KamailioLogFindings()
        clean.read(text: Self.ordinary)
        XCTAssertFalse(clean.exhausted)
    }

    func testAWatchCountsWholeLinesAsTheyAreAppendedAndTheRestAtStop() throws {
        let dir = try TemporaryDirectory.make("kamailio-log")
        defer { TemporaryDirectory.remove(dir) }
        let log = dir.appendingPathComponent("kamailio.log")
        try Data((Self.ordinary + "\n" + Self.shm + "\n").utf8).write(to: log)
        let watch = KamailioLogWatch(path: log.path)
        watch.readNew()
        XCTAssertEqual(watch.findings.sharedMemory, 1)
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        let half = Self.newT.index(Self.newT.startIndex, offsetBy: 20)
        try handle.write(contentsOf: Data(String(Self.newT[..<half]).utf8))
        watch.readNew()
        XCTAssertEqual(watch.findings.unnamedMemory, 0, "half a line is not read yet")
        try handle.write(contentsOf: Data((String(Self.newT[half...]) + "\n" + Self.pkg).utf8))
        try handle.close()
        watch.readNew()
        XCTAssertEqual(watch.findings.unnamedMemory, 1, "the line, once whole, is read whole")
        XCTAssertEqual(watch.findings.privateMemory, 0, "a last line without its newline waits")
        let final = watch.stop()
        XCTAssertEqual(final.privateMemory, 1, "stop reads the last line")
        XCTAssertEqual(final.sharedMemory, 1, "nothing is read twice")
    }

    func testTheWatchSaysOnceWhileTheRunGoesThatTheServerRanOutOfMemory() throws {
        let dir = try TemporaryDirectory.make("kamailio-log-live")
        defer { TemporaryDirectory.remove(dir) }
        let log = dir.appendingPathComponent("kamailio.log")
        try Data((Self.ordinary + "\n").utf8).write(to: log)
        let told = Told()
        let watch = KamailioLogWatch(path: log.path)
        watch.onExhausted = { told.add($0.sharedMemory) }
        watch.start()
        defer { watch.stop() }
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((Self.shm + "\n" + Self.shm + "\n").utf8))
        XCTAssertTrue(eventually(30, every: 0.05) { !told.values.isEmpty }, "told while the log is written")
        try handle.write(contentsOf: Data((Self.shm + "\n").utf8))
        try handle.close()
        XCTAssertTrue(eventually(30, every: 0.05) { watch.findings.sharedMemory == 3 })
        XCTAssertEqual(told.values, [2], "once, with what the log said then")
    }
}

/// What `onExhausted` was called with, from the watch's thread.
private final class Told: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [Int] = []

    func add(_ value: Int) { lock.withLock { seen.append(value) } }
    var values: [Int] { lock.withLock { seen } }
}
