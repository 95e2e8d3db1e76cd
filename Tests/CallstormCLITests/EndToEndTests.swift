@testable import CallstormCLI
import Driver
import Foundation
import Metrics
import Scenario
import TestSupport
import XCTest

/// Whole runs: the real embedded target, the real push gateway and real libcurl devices on loopback.
final class EndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("e2e")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func scenarioFile(_ yaml: String) throws -> String {
        let path = dir.appendingPathComponent("s.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static let small = """
        name: e2e
        seed: 3
        devices: 40
        push: { deadline: 2s }
        load:
          - ramp: { from: 0/s, to: 20/s, over: 1s }
          - hold: { rate: 20/s, for: 2s }
        behavior:
          answer_after: { uniform: [50ms, 150ms] }
          talk: { constant: 200ms }
        drain: 10s
        action_timeout: 3s
        """

    /// Every action started is accounted for: started = fulfilled + failed + effect unknown + timed out + in flight
    /// at stop.
    private func assertAccounting(_ c: [String: Int64], file: StaticString = #filePath, line: UInt = #line) {
        for kind in ["start", "join", "end"] {
            let started = c["action.\(kind).started"] ?? 0
            let ended = ["fulfilled", "failed", "unknown", "timed_out", "in_flight_at_stop"]
                .reduce(Int64(0)) { $0 + (c["action.\(kind).\($1)"] ?? 0) }
            XCTAssertEqual(started, ended, "\(kind): started \(started), accounted \(ended)", file: file, line: line)
        }
    }

    func testCompleteRunMeasuresEveryCallAndWritesTheReport() throws {
        let file = try scenarioFile(Self.small)
        var options = RunCommand.Options(file: file)
        options.out = dir.appendingPathComponent("run").path
        options.quiet = true
        let outcome = try RunCommand.perform(options)
        XCTAssertEqual(outcome.exitCode, .passed)
        let c = outcome.result.recorder.counters
        assertAccounting(c)
        let completed = c["calls.completed"] ?? 0
        XCTAssertGreaterThan(completed, 30)
        XCTAssertEqual(c["calls.started"], c["calls.planned"])
        XCTAssertEqual(completed + (c["calls.failed"] ?? 0), c["calls.started"])
        XCTAssertEqual(c["devices.registered"], 40)

        // summary.csv: push_to_report, join and end rows count exactly the completed calls.
        let csv = try String(contentsOfFile: outcome.runDirectory.appendingPathComponent("summary.csv").path,
                             encoding: .utf8)
        var counts: [String: Int64] = [:]
        for row in csv.split(separator: "\n").dropFirst() {
            let cols = row.split(separator: ",")
            counts[String(cols[0])] = Int64(cols[1])
        }
        XCTAssertEqual(counts["push_to_report"], completed)
        XCTAssertEqual(counts["join.fulfillment"], completed)
        XCTAssertEqual(counts["end.fulfillment"], completed)
        for name in ["report.html", "summary.json", "timeseries.csv", "counters.csv", "scenario.yaml"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: outcome.runDirectory.appendingPathComponent(name).path),
                          name)
        }
        XCTAssertTrue(outcome.reportPath.hasSuffix("report.html"))

        // actions.csv has one row per finished action; pushes.csv one per push received.
        let actions = try String(contentsOfFile: outcome.runDirectory.appendingPathComponent("actions.csv").path,
                                 encoding: .utf8).split(separator: "\n")
        let finished = ["start", "join", "end"].reduce(Int64(0)) { sum, kind in
            sum + ["fulfilled", "failed", "timed_out"].reduce(Int64(0)) { $0 + (c["action.\(kind).\($1)"] ?? 0) }
        }
        XCTAssertEqual(Int64(actions.count - 1), finished)
        XCTAssertTrue(actions[0].hasPrefix("id,kind,step,device"))
        let pushes = try String(contentsOfFile: outcome.runDirectory.appendingPathComponent("pushes.csv").path,
                                encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(Int64(pushes.count - 1),
                       (c["pushes.received.voip"] ?? 0) + (c["pushes.received.background"] ?? 0))
    }

    func testStopMidRunStillAccountsForEveryActionInFlight() throws {
        // Long talk times and a tiny drain: the stop catches calls mid-conversation. Arrivals planned for a minute
        // and devices for 100 calls at once: whenever the stop lands (late on a loaded machine), arrivals are still
        // planned after it and every call before it found idle devices.
        let yaml = Self.small.replacingOccurrences(of: "talk: { constant: 200ms }", with: "talk: { constant: 30s }")
            .replacingOccurrences(of: "drain: 10s", with: "drain: 300ms")
            .replacingOccurrences(of: "devices: 40", with: "devices: 200")
            .replacingOccurrences(of: "hold: { rate: 20/s, for: 2s }", with: "hold: { rate: 20/s, for: 60s }")
        guard case .success(let scenario) = ScenarioLoader.parse(yaml, file: "inline") else {
            return XCTFail("scenario did not parse")
        }
        let servers = try EmbeddedServers(gatewayHost: "127.0.0.1", gatewayPort: 0, bundleID: scenario.push.bundleID)
        defer { servers.stop() }
        let url = try servers.startTarget(bundleID: scenario.push.bundleID)
        let driver = try LoadDriver(settings: DriverSettings(scenario: scenario, targetURL: url, workers: 2))
        servers.sink.set(driver.pushSink)
        // Stop once calls are under way (every one talks 30 s, so all of them are in flight), not after a guess.
        DispatchQueue.global().async {
            _ = eventually(60) { driver.progress.callsStarted >= 8 }
            driver.requestStop()
        }
        let result = driver.run()
        XCTAssertTrue(result.interrupted)
        XCTAssertFalse(result.drainedCleanly)
        let c = result.recorder.counters
        assertAccounting(c)
        XCTAssertGreaterThan(c["calls.in_flight_at_stop"] ?? 0, 0)
        XCTAssertGreaterThan(c["calls.not_started_at_stop"] ?? 0, 0)
        XCTAssertEqual(c["calls.started"], c["calls.planned"])
    }

    func testEmbeddedTargetPushesOverHTTP2AndTLSWithVerifiedProviderTokens() throws {
        guard case .success(let scenario) = ScenarioLoader.parse(Self.small, file: "inline") else {
            return XCTFail("scenario did not parse")
        }
        XCTAssertTrue(scenario.push.tls, "TLS is the default")
        let servers = try EmbeddedServers(push: scenario.push, stateDirectory: dir.path)
        defer { servers.stop() }
        XCTAssertTrue(servers.gatewayURL.hasPrefix("https://127.0.0.1:"), servers.gatewayURL)
        let url = try servers.startTarget(bundleID: scenario.push.bundleID)
        let driver = try LoadDriver(settings: DriverSettings(scenario: scenario, targetURL: url, workers: 2))
        servers.sink.set(driver.pushSink)
        let result = driver.run()
        XCTAssertTrue(result.drainedCleanly)
        let gateway = servers.gateway.stats
        XCTAssertGreaterThan(gateway.accepted, 0)
        XCTAssertEqual(gateway.rejected, [:], "every push from the target passes the APNs rules")
        let server = servers.gatewayServer.stats
        XCTAssertGreaterThanOrEqual(server.tlsHandshakes, 1)
        XCTAssertEqual(server.http2Connections, server.connectionsAccepted, "every connection spoke HTTP/2")
        XCTAssertLessThanOrEqual(server.connectionsAccepted, 2, "pushes multiplex on one connection")
        XCTAssertEqual(servers.gateway.providerTokenCounts.verified, server.connectionsAccepted,
                       "the ES256 token is verified once per connection")
        XCTAssertEqual(servers.target?.pushesFailed, 0)
    }

    func testValidateReportsEveryProblemWithPositionAndExits2() throws {
        let file = try scenarioFile("""
            name: broken
            devcies: 10
            duration: 10 seconds
            load:
              - hold: { rate: -5/s, for: 1s }
            """)
        let pipe = Pipe()
        let saved = dup(2)
        dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
        let code = Command.run(["validate", file])
        dup2(saved, 2)
        close(saved)
        pipe.fileHandleForWriting.closeFile()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(code, .invalidInput)
        XCTAssertTrue(text.contains("s.yaml:2:1: error:"), text)
        XCTAssertTrue(text.contains("did you mean 'devices'?"), text)
        XCTAssertTrue(text.contains("s.yaml:3:11: error:"), text)
        XCTAssertTrue(text.contains("s.yaml:5:19: error:"), text)
    }
}
