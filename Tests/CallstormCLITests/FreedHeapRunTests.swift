import Foundation
import TestSupport
import XCTest

/// The websocket scenario's signal 11 (2026-12-07, docs/ARCHITECTURE.md known issues): in a debug build, code
/// reading a device's conversation manager through `DeviceModel.subscript(local:)`, then a `_read` coroutine,
/// kept using the address the coroutine yielded (a copy of the device in the coroutine's heap frame) after the
/// coroutine had freed that frame. Whether a run crashed depended on what the heap put there meanwhile (7 of 15
/// runs of the websocket scenario). jemalloc's `junk:free` fills every freed block at once, so the same use
/// crashes at the first action of the first call, every run: the debug callstorm binary `make test` builds runs
/// a short socket scenario so and must end as any run does. (A release binary keeps no such address; it passes
/// either way.)
final class FreedHeapRunTests: XCTestCase {
    private let yaml = """
        name: freed-heap
        seed: 42
        devices: 24
        target: { embedded: true }
        push: { listen: "127.0.0.1:0", deadline: 2s }
        device: { socket: on_push, socket_linger: 200ms }
        load: [ { hold: { rate: 6/s, for: 1s } } ]
        mix: { incoming-1to1: 50, hold-resume: 25, declined: 25 }
        behavior:
          answer_after: { uniform: [100ms, 200ms] }
          talk: { uniform: [200ms, 400ms] }
          hangup: random
        drain: 10s
        action_timeout: 5s

        """

    func testASocketRunWithEveryFreedBlockJunkFilledEndsWithoutCrashing() throws {
        guard let binary = ChildProcess.callstormBinary else {
            throw XCTSkip("CALLSTORM_BIN is not set (make test sets it to the callstorm binary it built)")
        }
        let dir = try TemporaryDirectory.make("freed-heap")
        defer { TemporaryDirectory.remove(dir) }
        let file = dir.appendingPathComponent("freed-heap.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        // The child inherits it; this process (the system allocator) ignores it.
        setenv("MALLOC_CONF", "junk:free", 1)
        defer { unsetenv("MALLOC_CONF") }
        let run = try ChildProcess.run(binary, ["run", file.path, "--out", dir.appendingPathComponent("run").path,
                                                "--quiet"], in: dir, logs: dir, name: "run", seconds: 120)
        XCTAssertFalse(run.err.contains("Program crashed"), String(run.err.prefix(3000)))
        let status = run.status.map(String.init) ?? "none (overran)"
        XCTAssertTrue(run.status == 0 || run.status == 1, "exit \(status): \(run.err.suffix(2000))")
        let counters = try String(contentsOf: dir.appendingPathComponent("run/counters.csv"), encoding: .utf8)
        let completed = counters.split(separator: "\n").first { $0.hasPrefix("calls.completed,") }
        XCTAssertGreaterThan(completed.flatMap { Int($0.split(separator: ",")[1]) } ?? 0, 0, counters)
    }
}
