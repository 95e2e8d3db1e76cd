import Determinism
@testable import Driver
import Foundation
import HTTPServer
import Scenario
import XCTest

/// A worker with devices 0 and 1 whose wheel runs on a manual clock, against a loopback server that upgrades every
/// request to `session`: for tests of the worker's device sockets. Waits are bounded polls on the worker's queue.
final class SocketWorkerHarness {
    let http: HTTPServer
    let clock = ManualClock()
    let worker: Worker
    private var finished = false

    /// `scenario` gets the server's port.
    init(session: WebSocketSession, scenario: (Int) throws -> Scenario) throws {
        http = HTTPServer(handler: HTTPClosureHandler { request, respond in
            respond(WebSocketUpgrade.accept(request, session: session))
        })
        try http.start()
        let settings = DriverSettings(scenario: try scenario(http.port), targetURL: "http://127.0.0.1:\(http.port)",
                                      workers: 1)
        worker = try Worker(index: 0, settings: settings, clock: clock, deviceIndexes: [0, 1],
                            runStartNanos: clock.nowNanos())
    }

    /// Ends the worker (once) and returns its counters.
    func finish() -> [String: Int64] {
        finished = true
        return worker.finish().counters
    }

    /// For a `defer`: ends the worker if the test did not, and stops the server.
    func stop() {
        if !finished { _ = worker.finish() }
        http.stop()
    }

    /// Waits (bounded) for a condition checked on the worker's queue.
    func eventually(_ what: String, file: StaticString = #filePath, line: UInt = #line,
                    _ condition: @escaping () -> Bool) {
        for _ in 0..<1000 {
            if worker.loop.sync(condition) { return }
            usleep(10_000)
        }
        XCTFail("never: \(what)", file: file, line: line)
    }

    /// Moves the manual clock and lets the worker's wheel fire what came due.
    func advance(by nanos: UInt64) {
        clock.advance(by: nanos)
        worker.loop.sync { worker.rearm() }
    }
}
