import Dispatch
import EventPolling
import XCTest

/// `ThreadScheduling`'s slice: a thread asked for one reads it back from the kernel (sched_getattr) with its policy
/// and nice intact, a thread asked for none keeps the kernel's default, and the text forms with a slice parse.
final class ThreadSliceTests: XCTestCase {
    private func started(_ scheduling: ThreadScheduling) -> (slice: Int64, policy: Int32, nice: Int32) {
        let thread = EventThread(queue: DispatchQueue(label: "test.slice"), name: "test.slice", ownsItsWork: true,
                                 scheduling: scheduling)
        let seen = thread.sync {
            (ThreadScheduling.currentSliceNanos(), ThreadScheduling.currentPolicy(), ThreadScheduling.currentNice())
        }
        thread.stop()
        thread.waitUntilStopped()
        return seen
    }

    /// Kernels before 6.12 report no slice (0) and ignore the request; there is nothing to read back then.
    private func requireSlices() throws {
        try XCTSkipIf(ThreadScheduling.currentSliceNanos() <= 0, "this kernel reports no EEVDF slice")
    }

    func testAThreadAskedForAShortSliceReadsItBack() throws {
        try requireSlices()
        let seen = started(ThreadScheduling(.normal, sliceMicros: 200))
        XCTAssertEqual(seen.slice, 200_000)
        XCTAssertEqual(seen.policy, 0)
    }

    func testASliceKeepsThePolicyAndTheNiceSetBeforeIt() throws {
        try requireSlices()
        let seen = started(ThreadScheduling(.batch, nice: 5, sliceMicros: 20_000))
        XCTAssertEqual(seen.slice, 20_000_000)
        XCTAssertEqual(seen.policy, 3)
        XCTAssertEqual(seen.nice, 5)
    }

    func testAThreadAskedForNoSliceKeepsTheDefault() throws {
        try requireSlices()
        let own = ThreadScheduling.currentSliceNanos()
        let seen = started(.normal)
        XCTAssertNotEqual(seen.slice, 200_000)
        XCTAssertEqual(seen.slice, own, "the kernel's default, as the test's own thread has")
    }

    func testTheTextFormsWithASliceParse() {
        XCTAssertEqual(ThreadScheduling(parsing: "normal/200us"), ThreadScheduling(.normal, sliceMicros: 200))
        XCTAssertEqual(ThreadScheduling(parsing: "batch:5/20ms"),
                       ThreadScheduling(.batch, nice: 5, sliceMicros: 20_000))
        XCTAssertEqual(ThreadScheduling(parsing: "batch/3ms")?.description, "batch/3000us")
        XCTAssertEqual(ThreadScheduling(parsing: "normal/200us")?.description, "normal/200us")
        XCTAssertEqual(ThreadScheduling(.normal, sliceMicros: 5).sliceMicros, 100, "clamped as the kernel clamps")
        for bad in ["normal/", "normal/200", "normal/50us", "normal/101ms", "batch/2ms/1", "/200us", "normal/xus"] {
            XCTAssertNil(ThreadScheduling(parsing: bad), bad)
        }
    }
}
