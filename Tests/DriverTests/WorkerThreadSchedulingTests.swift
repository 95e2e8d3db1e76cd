@testable import Driver
import Determinism
import EventPolling
import Foundation
import XCTest

/// A worker's thread runs at the workers' scheduling (`CALLSTORM_WORKER_PRIORITY`, else SCHED_FIFO at priority 1
/// where the kernel allows it, SCHED_OTHER where it does not), read back by the thread itself from the kernel.
final class WorkerThreadSchedulingTests: XCTestCase {
    func testTheWorkersDefaultIsRealTime() {
        XCTAssertEqual(ThreadScheduling.workerDefault, .fifo, "a due timer takes a core at once")
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
        if wanted.priority == .fifo {
            // Refused without CAP_SYS_NICE or an RLIMIT_RTPRIO: the thread stays at SCHED_OTHER.
            XCTAssertTrue(seen.0 == 1 || seen.0 == 0, "policy \(seen.0)")
            if ThreadScheduling.realtimeAllowed() { XCTAssertEqual(seen.0, 1) }
            return
        }
        XCTAssertEqual(seen.0, wanted.policy)
        try XCTSkipIf(seen.1 <= 0, "this kernel reports no EEVDF slice")
        if wanted.sliceMicros > 0 { XCTAssertEqual(seen.1, Int64(wanted.sliceMicros) * 1000) }
    }
}
