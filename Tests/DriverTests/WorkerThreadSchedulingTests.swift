@testable import Driver
import Determinism
import EventPolling
import Foundation
import XCTest

/// A worker's thread runs at the workers' scheduling (`CALLSTORM_WORKER_PRIORITY`, else the kernel's default:
/// SCHED_OTHER, nice 0, its own slice), read back by the thread itself from the kernel.
final class WorkerThreadSchedulingTests: XCTestCase {
    func testTheWorkersDefaultIsTheKernelsDefault() {
        XCTAssertEqual(ThreadScheduling.workerDefault, .normal, "the quiet A/B found no gain in a short slice")
        if ProcessInfo.processInfo.environment["CALLSTORM_WORKER_PRIORITY"] == nil {
            XCTAssertEqual(ThreadLoop.workerScheduling, .workerDefault)
        }
    }

    func testAWorkerThreadReadsBackItsSchedulingFromTheKernel() throws {
        let loop = try ThreadLoop(name: "callstorm.worker.test", clock: MonotonicClock(), maxConnections: 4,
                                  caFile: nil)
        let seen = loop.sync { (ThreadScheduling.currentPolicy(), ThreadScheduling.currentSliceNanos()) }
        loop.close()
        loop.waitUntilStopped()
        let wanted = ThreadLoop.workerScheduling
        XCTAssertEqual(seen.0, wanted.policy)
        try XCTSkipIf(seen.1 <= 0, "this kernel reports no EEVDF slice")
        if wanted.sliceMicros > 0 { XCTAssertEqual(seen.1, Int64(wanted.sliceMicros) * 1000) }
    }
}
