import Determinism
import FaultControl
import Faults
import Foundation
import Locking
import RunFormats
import Scenario
import TestSupport
import XCTest

/// The fault controller under a manual clock: windows open and close as the test moves the load's clock (each move
/// ticks the controller), with no timer and no sleep.
final class FaultControllerTests: XCTestCase {
    /// A run whose load began at `loadStart` on a manual clock, logging into a real `FaultLog`.
    final class Run: FaultRunContext, @unchecked Sendable {
        let clock = ManualClock(startNanos: 10_000_000_000)
        let log = FaultLog()
        let seriesStartNanos: UInt64 = 9_000_000_000
        var loadStart: UInt64 = 0

        func sinceLoadNanos() -> UInt64? {
            loadStart > 0 && clock.nowNanos() >= loadStart ? clock.nowNanos() - loadStart : nil
        }

        func nowNanos() -> UInt64 { clock.nowNanos() }

        func logFault(sinceLoadNanos: UInt64, window: String, kind: String, subject: String, seq: UInt64) {
            log.add(.init(sinceLoadNanos: sinceLoadNanos, window: window, kind: kind, device: -1, seq: seq,
                          subject: subject))
        }

        /// Moves the load's clock to `nanos` since the load began.
        func move(toSinceLoad nanos: UInt64) { clock.advance(to: loadStart + nanos) }

        var rows: [String] { log.all.map { "\($0.window)|\($0.kind)|\($0.subject ?? "")" } }
    }

    final class Target: ControlledTarget, @unchecked Sendable {
        let calls = Mutex<[String]>([])
        var failRestart = false
        var pid: Int32? { 42 }
        func kill(signal: Int32) { calls.withLock { $0.append("kill \(signal)") } }
        func restart() throws {
            calls.withLock { $0.append("restart") }
            if failRestart { throw CocoaError(.fileNoSuchFile) }
        }
    }

    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("faults") }
    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func started(_ windows: [FaultWindow], target: Target? = nil,
                         storm: (@Sendable (UInt16?) -> Int)? = nil) throws -> (FaultController, Run) {
        let controller = try FaultController(windows: windows, seed: 7, upstreamURL: "http://127.0.0.1:9",
                                             target: target, dropEventSockets: storm)
        let run = Run()
        controller.attach(run, tickingOn: run.clock)
        return (controller, run)
    }

    func testNothingHappensBeforeTheLoadBegins() throws {
        let target = Target()
        let (controller, run) = try started([FaultWindow(name: "crash", atNanos: 0, forNanos: 1_000_000_000,
                                                         target: TargetFaults())], target: target)
        controller.tick()
        run.clock.advance(by: 60_000_000_000)
        XCTAssertEqual(run.rows, [])
        XCTAssertEqual(target.calls.withLock { $0 }, [])
        XCTAssertEqual(controller.finish()?.counters ?? [:], [:])
    }

    func testAKillWindowKillsAtItsStartRestartsAtItsEndAndMarksTheHistory() throws {
        let target = Target()
        let name = "crash, \"hard\""
        let (controller, run) = try started([FaultWindow(name: name, atNanos: 2_000_000_000,
                                                         forNanos: 1_000_000_000, target: TargetFaults())],
                                            target: target)
        let history = dir.appendingPathComponent("history-wfaults.jsonl")
        controller.historyFile = history
        run.loadStart = run.clock.nowNanos()
        run.move(toSinceLoad: 1_999_000_000)
        XCTAssertEqual(target.calls.withLock { $0 }, [])
        run.move(toSinceLoad: 2_000_000_000)
        controller.tick()  // a second tick at the same instant
        XCTAssertEqual(target.calls.withLock { $0 }, ["kill \(SIGKILL)"], "killed once")
        XCTAssertEqual(run.rows, ["\(name)|target.killed|pid-42"])
        let mark = try String(contentsOf: history, encoding: .utf8)
        // Marked 50 ms after the kill at the latest (the manual clock did not move while it ran).
        let t = run.loadStart + 2_000_000_000 + 50_000_000 - run.seriesStartNanos
        XCTAssertEqual(mark, "{\"t\":\(t),\"type\":\"target_killed\"}\n")
        run.move(toSinceLoad: 3_000_000_000)
        XCTAssertEqual(target.calls.withLock { $0 }, ["kill \(SIGKILL)", "restart"])
        XCTAssertEqual(run.rows.last, "\(name)|target.restarted|pid-42")
        let counters = controller.finish()?.counters ?? [:]
        XCTAssertEqual(counters["faults.target.killed"], 1)
        XCTAssertEqual(counters["faults.target.restarted"], 1)
        let rows = FaultRow.rows(fromCSV: run.log.csv())
        XCTAssertEqual(rows.map(\.window), [name, name], "the window's name survives faults.csv")
    }

    func testARestartThatFailsIsCounted() throws {
        let target = Target()
        target.failRestart = true
        let (controller, run) = try started([FaultWindow(name: "crash", atNanos: 0, forNanos: 1_000_000_000,
                                                         target: TargetFaults())], target: target)
        run.loadStart = run.clock.nowNanos()
        controller.tick()
        run.move(toSinceLoad: 1_000_000_000)
        let counters = controller.finish()?.counters ?? [:]
        XCTAssertEqual(counters["faults.target.restart_failed"], 1)
        XCTAssertNil(counters["faults.target.restarted"])
    }

    func testAStormDropsEverySocketOnceWhenItsWindowOpens() throws {
        let codes = Mutex<[UInt16?]>([])
        let storm = TargetFaults(kill: false, socketStorm: SocketStormFaults(code: 1012))
        let (controller, run) = try started([FaultWindow(name: "storm", atNanos: 1_000_000_000,
                                                         forNanos: 1_000_000_000, target: storm)],
                                            storm: { code in codes.withLock { $0.append(code) }; return 7 })
        run.loadStart = run.clock.nowNanos()
        for step in 0..<4 {
            run.move(toSinceLoad: UInt64(step) * 600_000_000)
        }
        XCTAssertEqual(codes.withLock { $0 }, [1012])
        XCTAssertEqual(run.rows, ["storm|target.socket_storm_1012|target"])
        let counters = controller.finish()?.counters ?? [:]
        XCTAssertEqual(counters["socket.storm_dropped"], 7)
        XCTAssertEqual(counters["faults.target.socket_storm_1012"], 1)
    }

    func testANetworkWindowSwitchesTheSharedProxysToxicsAtItsEdges() throws {
        let network = NetworkFaults(toxics: ["latency": ["ms": 5]])
        let (controller, run) = try started([FaultWindow(name: "slow, \"net\"", atNanos: 1_000_000_000,
                                                         forNanos: 1_000_000_000, network: network)])
        defer { controller.stop() }
        let url = controller.deviceURL(for: "http://localhost:8080/v1")
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        XCTAssertFalse(url.hasPrefix("http://127.0.0.1:8080"), "devices go through the proxy")
        XCTAssertEqual(controller.routes(for: "http://localhost:8080"), [:], "a window on every device is shared")
        run.loadStart = run.clock.nowNanos()
        for sinceLoad: UInt64 in [500_000_000, 1_000_000_000, 1_500_000_000, 2_000_000_000, 2_500_000_000] {
            run.move(toSinceLoad: sinceLoad)
        }
        XCTAssertEqual(run.rows, ["slow, \"net\"|network.on|proxy", "slow, \"net\"|network.off|proxy"])
        XCTAssertEqual(run.log.all.map(\.sinceLoadNanos), [1_000_000_000, 2_000_000_000])
    }

    func testAWindowOnSomeDevicesGetsAProxyOfItsOwn() throws {
        var window = FaultWindow(name: "some", atNanos: 0, forNanos: 1_000_000_000,
                                 network: NetworkFaults(toxics: ["latency": ["ms": 5]]))
        window.devices = 0.5
        let (controller, run) = try started([FaultWindow(name: "w", atNanos: 0, forNanos: 10_000_000_000), window])
        defer { controller.stop() }
        XCTAssertEqual(controller.deviceURL(for: "http://127.0.0.1:8080"), "http://127.0.0.1:8080")
        XCTAssertEqual(Array(controller.routes(for: "http://127.0.0.1:8080").keys), [1])
        run.loadStart = run.clock.nowNanos()
        controller.tick()
        XCTAssertEqual(run.rows, ["some|network.on|proxy-w1"])
    }

    func testATargetURLWithoutAHostIsRefusedWithTheReason() {
        let window = FaultWindow(name: "n", atNanos: 0, forNanos: 1, network: NetworkFaults(toxics: ["latency": [:]]))
        XCTAssertThrowsError(try FaultController(windows: [window], seed: 1, upstreamURL: "not a url",
                                                 target: nil)) { error in
            XCTAssertTrue("\(error)".contains("no host"), "\(error)")
        }
    }
}
