@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// The registration storm (issue 35): Kamailio restarted mid-run under awake TCP devices with `reconnect:
/// exponential`. Every device reconnects and re-REGISTERs on its new connection (RFC 5626 flow recovery), the
/// calls after the recovery complete, and the calls lost before it are put down to the restart, not the server.
final class SIPStormRunTests: XCTestCase {
    private static let scenario = """
        name: sip-storm-test
        seed: 35
        devices: 40
        workers: 1
        target: { sip: { kamailio: {} } }
        device: { signaling: sip, sleep: false, transport: tcp, reconnect: exponential }
        load: [ { hold: { rate: 5/s, for: 7s } } ]
        mix: { incoming-1to1: 100 }
        behavior:
          answer_after: { uniform: [0ms, 100ms] }
          talk: { uniform: [100ms, 300ms] }
          hangup: random
        drain: 10s
        action_timeout: 3s
        faults:
          - { name: proxy-restart, at: 2s, for: 2s, target: { kill: true, restart_after: 1s } }
        """

    func testEveryAwakeDeviceReRegistersAfterARestartAndTheLostCallsAreTheRestarts() throws {
        let dir = try TemporaryDirectory.make("sip-storm")
        // A failed run keeps its directory (history, faults.csv, Kamailio's log) and names it.
        defer {
            if (testRun?.failureCount ?? 0) == 0 { TemporaryDirectory.remove(dir) } else { print("kept \(dir.path)") }
        }
        let outcome = try runScenario(Self.scenario, in: dir)
        let run = outcome.runDirectory
        let c = outcome.result.recorder.counters
        let faults = try Self.csv(run.appendingPathComponent("faults.csv"))
        func kind(_ name: String) -> [[String]] { faults.filter { $0.count > 2 && $0[2] == name } }
        XCTAssertEqual(kind("target.restarted").count, 1, "\(faults)")
        // Every device lost its connection at the kill and re-registered on a new one.
        let reregister = outcome.result.recorder.histograms[MetricName.sipReregister]
        XCTAssertEqual(reregister?.totalCount, 40, "\(c)")
        XCTAssertGreaterThanOrEqual(c[MetricName.sipReconnects] ?? 0, 40, "\(c)")
        XCTAssertEqual(kind("target.reregistering").count, 40, "\(faults)")
        XCTAssertEqual(kind("target.reregistered").count, 40, "\(faults)")
        // No device is back before the restart: the controller starts Kamailio again once the load's clock passes
        // the window's start plus `restart_after` (2 s + 1 s), and a REGISTER's 200 can only come from the new
        // process. faults.csv stamps the kill, the restart and each device's return on that one clock (seconds
        // since the load started), so the rows are compared there, from the restart's instant itself.
        let restartAt = 3.0
        let returns: [Double] = kind("target.reregistered").compactMap { Double($0[0]) }
        XCTAssertEqual(returns.count, 40, "\(faults)")
        for t in returns { XCTAssertGreaterThanOrEqual(t, restartAt, "a device back before the restart: \(faults)") }
        // The calls lost in the storm are the restart's; none is the server's, and the checker blames nothing.
        XCTAssertGreaterThan(c["calls.attributed_to_faults.target.killed"] ?? 0, 0, "\(c)")
        XCTAssertEqual(c["calls.failed_without_fault"] ?? 0, 0, "\(c)")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, "\(c)")
        // The calls placed after the last device re-registered all complete (half a second later: a caller still
        // backing off drops its INVITE, a call the restart's). faults.csv counts from the load's start, actions.csv
        // from the run's origin, before the devices registered: on a loaded machine the two are over a second
        // apart (1.5 s seen), so the return is moved onto actions.csv's clock first.
        let loadStart = outcome.result.loadStartSecond
        let back: Double = loadStart + (returns.max() ?? .infinity) + 0.5
        let actions = try Self.csv(run.appendingPathComponent("actions.csv"))
        let after: [[String]] = actions.filter { row in
            row.count > 8 && row[1] == "start" && (Double(row[5]) ?? 0) > back
        }
        XCTAssertGreaterThan(after.count, 0, "calls planned after every device was back at \(back) s")
        for row in after { XCTAssertEqual(row[8], "fulfilled", "\(row)") }
    }

    /// A CSV file's rows after its header, split at commas (these files quote nothing).
    private static func csv(_ url: URL) throws -> [[String]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }
}
