@testable import CallstormCLI
import Foundation
import TestSupport
import XCTest

/// The allocator's freed pages (issue 33, 2026-12-08): the executable's jemalloc gives them back from a background
/// thread, and the run gives them all back at its end, before the check and the report (`HeapPages.giveBack`).
final class HeapPagesTests: XCTestCase {
    func testTheExecutablesAllocatorPurgesFreedPagesFromABackgroundThread() throws {
        guard let binary = ChildProcess.callstormBinary else {
            throw XCTSkip("CALLSTORM_BIN is not set (make test sets it to the callstorm binary it built)")
        }
        let dir = try TemporaryDirectory.make("heap-pages")
        defer { TemporaryDirectory.remove(dir) }
        // jemalloc prints its options at exit; the child inherits this, this process (glibc's malloc) ignores it.
        setenv("MALLOC_CONF", "stats_print:true", 1)
        defer { unsetenv("MALLOC_CONF") }
        let run = try ChildProcess.run(binary, ["--help"], in: dir, logs: dir, name: "help", seconds: 60)
        XCTAssertEqual(run.status, 0, String(run.err.suffix(2000)))
        XCTAssertTrue(run.err.contains("opt.background_thread: true"), String(run.err.prefix(3000)))
        XCTAssertTrue(run.err.contains("opt.dirty_decay_ms: 1000"), String(run.err.prefix(3000)))
        XCTAssertTrue(run.err.contains("opt.muzzy_decay_ms: 0"), String(run.err.prefix(3000)))
    }

    func testGivingPagesBackWithoutJemallocReportsFalse() {
        // The test process runs on glibc's malloc: no `mallctl` to find, nothing to call.
        XCTAssertNil(dlsym(nil, "mallctl"))
        XCTAssertFalse(HeapPages.giveBack())
    }
}
