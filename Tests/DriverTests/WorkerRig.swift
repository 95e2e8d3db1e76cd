import Determinism
@testable import Driver
import Scenario
import XCTest

/// A real worker with devices 0 and 1 on an `EmbeddedLoop` under the manual clock, its device sockets in memory
/// (`MemorySocketPool`) answered by `server`: for tests of the worker and its parts. No socket, no thread, no
/// sleep: a wait is the loop running what is pending, a delay is the clock moved by hand.
final class WorkerRig {
    let clock = ManualClock()
    let loop: EmbeddedLoop
    let worker: Worker
    private var finished = false

    init(server: @escaping (String) -> String? = { _ in nil }, scenario: Scenario) throws {
        loop = EmbeddedLoop(clock: clock)
        loop.socketServer = server
        let settings = DriverSettings(scenario: scenario, targetURL: "http://127.0.0.1:9", workers: 1)
        worker = try Worker(index: 0, settings: settings, loop: loop, deviceIndexes: [0, 1],
                            runStartNanos: clock.nowNanos())
    }

    /// Every text the devices sent on their sockets.
    var texts: [String] { loop.sockets?.texts ?? [] }

    /// Ends the worker (once) and returns its counters.
    func finish() -> [String: Int64] {
        finished = true
        return worker.finish().counters
    }

    /// For a `defer`: ends the worker if the test did not.
    func stop() {
        if !finished { _ = worker.finish() }
    }

    /// Runs what is pending on the loop, then checks `condition`.
    func expect(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        loop.runPending()
        XCTAssertTrue(condition(), "never: \(what)", file: file, line: line)
    }

    /// Moves the manual clock, firing timers as they come due, until `condition` holds (at most `nanos` on).
    func advance(until what: String, within nanos: UInt64, file: StaticString = #filePath, line: UInt = #line,
                 _ condition: () -> Bool) {
        XCTAssertTrue(loop.run(until: clock.nowNanos() + nanos, condition), "never: \(what)", file: file, line: line)
    }

    /// Moves the manual clock by `nanos`, firing every timer that comes due on the way.
    func advance(by nanos: UInt64) {
        let end = clock.nowNanos() + nanos
        loop.run(until: end) { false }
        clock.advance(to: end)
        loop.runPending()
    }
}

extension Worker {
    /// The worker's socket signaling kind, when its devices hold sockets.
    var sockets: DeviceSockets? { signaling.first(DeviceSockets.self) }
}
