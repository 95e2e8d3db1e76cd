@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// `target.sip.kamailio`: `callstorm run` starts Kamailio itself, with the push route pointed at the run's
/// gateway and a fresh provider token, and stops it by PID when the run ends.
final class KamailioLaunchRunTests: XCTestCase {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    /// Kamailio processes whose parent is this test process (the run starts Kamailio in-process).
    private func kamailioChildren() -> [Int32] {
        KamailioServer.children(of: getpid()).filter { pid in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return name.hasPrefix("kamailio") && !stat.contains(") Z ")
        }
    }

    func testSleepingDevicesAreWokenThroughAKamailioTheRunStartsAndStops() throws {
        XCTAssertEqual(kamailioChildren(), [], "a Kamailio from an earlier test is still running")
        let dir = try TemporaryDirectory.make("sip-launch")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.examples.appendingPathComponent("incoming-wake.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "target: { sip: { registrar: \"127.0.0.1:5060\" } }",
                                  with: "target: { sip: { kamailio: true } }")
            .replacingOccurrences(of: "listen: \"127.0.0.1:2197\"", with: "listen: \"127.0.0.1:0\"")
        XCTAssertTrue(text.contains("kamailio: true"))
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let log = (try? String(contentsOf: outcome.runDirectory.appendingPathComponent("kamailio.log"),
                               encoding: .utf8)) ?? "no kamailio.log"
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(c["calls.started"] ?? 0),
                                    "\(c) \(log.suffix(2000))")
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0, 0,
                             "the push route reached the run's gateway: \(c) \(log.suffix(2000))")
        XCTAssertTrue(log.contains("udp: 127.0.0.1"), "Kamailio's log is kept in the run directory: \(log)")
        XCTAssertEqual(kamailioChildren(), [], "the run stopped its Kamailio")
        // The tested server is named, sized from the scenario (64 MB at 4 calls/s), and nothing blames it.
        let facts = try XCTUnwrap(Self.summaryFacts(outcome.runDirectory))
        XCTAssertEqual((facts["server"] as? [String: Any])?["sharedMemoryMB"] as? Int, 64, "\(facts)")
        XCTAssertFalse(outcome.verdict.reasons.contains { $0.contains("ran out of") }, "\(outcome.verdict)")
        XCTAssertFalse(log.contains("ts_append"), "ordinary REGISTERs log no tsilo error: \(log.suffix(2000))")
    }

    /// A deliberately small shared memory: Kamailio runs out, and the verdict names its memory and the key that
    /// changes it, as the harness's configuration, not a server defect; the facts name Kamailio; the run is
    /// ready (the ready file) once its devices registered, and no reference target ran beside it.
    func testASharedMemoryTooSmallForTheLoadIsNamedAsTheHarnessConfigurationNotAServerDefect() throws {
        let dir = try TemporaryDirectory.make("sip-small-shm")
        defer { TemporaryDirectory.remove(dir) }
        let bench = Self.examples.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Benchmarks/scenarios/sip-hold.yaml")
        let text = try String(contentsOf: bench, encoding: .utf8)
            .replacingOccurrences(of: "target: { sip: { registrar: \"127.0.0.1:5060\" } }",
                                  with: "target: { sip: { kamailio: { shared_memory_mb: 6 } } }")
            .replacingOccurrences(of: "{ hold: { rate: 100/s, for: 10s } }", with: "{ hold: { rate: 100/s, for: 2s } }")
        XCTAssertTrue(text.contains("shared_memory_mb: 6") && text.contains("for: 2s"), text)
        let ready = dir.appendingPathComponent("ready")
        let outcome = try runScenario(text, in: dir) { $0.readyFile = ready.path }
        try assertOutcomesAgree(run: outcome.runDirectory)
        let reasons = outcome.verdict.reasons
        let first = try XCTUnwrap(reasons.first, "\(outcome.verdict)")
        XCTAssertTrue(first.contains("the Kamailio callstorm started ran out of shared memory"), first)
        XCTAssertTrue(first.contains("not a server defect"), first)
        XCTAssertTrue(first.contains("raise target.sip.kamailio.shared_memory_mb (this run: 6)"), first)
        for reason in reasons where reason.hasPrefix("history checker:") {
            XCTAssertTrue(reason.hasSuffix("not judged a server defect"), reason)
        }
        XCTAssertEqual(outcome.exitCode, .harnessFailure)
        let notes = try String(contentsOf: outcome.runDirectory.appendingPathComponent("raw/notes.json"),
                               encoding: .utf8)
        XCTAssertTrue(notes.contains("-m 6 -M 8"), notes)
        XCTAssertTrue(notes.contains("kamailio.log:"), "the log's own words: \(notes)")
        let facts = try XCTUnwrap(Self.summaryFacts(outcome.runDirectory))
        let target = facts["target"] as? String ?? ""
        XCTAssertTrue(target.hasPrefix("Kamailio 5."), "\(target)")
        let server = try XCTUnwrap(facts["server"] as? [String: Any], "\(facts)")
        XCTAssertEqual(server["name"] as? String, "Kamailio")
        XCTAssertTrue((server["configuration"] as? String ?? "").hasSuffix("deploy/kamailio/kamailio.cfg"))
        XCTAssertEqual(server["defines"] as? [String], ["SIP_PASSWORD=\"callstorm\""])
        XCTAssertEqual(server["sharedMemoryMB"] as? Int, 6)
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<th scope=\"row\">Server</th>"), "the report names the server")
        let lines = try String(contentsOf: ready, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains("registered=300"), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("sip=127.0.0.1:") && $0 != "sip=127.0.0.1:0" }, "\(lines)")
        XCTAssertEqual(kamailioChildren(), [], "the run stopped its Kamailio")
        // `callstorm report` rebuilds the same verdict from the run directory (kamailio.log, the facts' server).
        let rebuilt = try ReportCommand.rebuild(run: outcome.runDirectory)
        XCTAssertEqual(rebuilt.verdict.reasons.first, first, "\(rebuilt.verdict)")
        XCTAssertEqual(try ReportCommand.execute([outcome.runDirectory.path]), .harnessFailure, "exit 3, as the run")
    }

    /// `--quiet` keeps the line a script starts its outside callers on, and `--ready-file` names the launched
    /// Kamailio's port at the same moment. No caller comes here, so the run did nothing (exit 4) and counts no
    /// action: the one launched-Kamailio run `assertOutcomesAgree` has nothing to compare in.
    func testUnderQuietTheOutsideCallersCueStaysAndTheReadyFileNamesTheLaunchedKamailio() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("sip-ready")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.examples.appendingPathComponent("outside-caller.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "target: { sip: { registrar: \"127.0.0.1:5060\" } }",
                                  with: "target: { sip: { kamailio: true } }")
            .replacingOccurrences(of: "listen: \"127.0.0.1:2197\"", with: "listen: \"127.0.0.1:0\"")
        XCTAssertTrue(text.contains("kamailio: true") && text.contains("127.0.0.1:0"), text)
        let scenario = dir.appendingPathComponent("outside.yaml")
        try text.write(to: scenario, atomically: true, encoding: .utf8)
        let ready = dir.appendingPathComponent("ready")
        let run = try ChildProcess.run(binary, ["run", scenario.path, "--out", dir.appendingPathComponent("run").path,
                                                "--quiet", "--duration", "1s", "--ready-file", ready.path],
                                       in: dir, logs: dir, name: "callstorm")
        XCTAssertEqual(run.status, 4, run.err)
        XCTAssertTrue(run.err.contains("20 devices registered; waiting for calls from outside parties"), run.err)
        let lines = try String(contentsOf: ready, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains("registered=20"), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("sip=127.0.0.1:") && $0 != "sip=127.0.0.1:0" }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("gateway=http://127.0.0.1:") }, "\(lines)")
    }

    /// summary.json's facts, keys as written.
    static func summaryFacts(_ run: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: run.appendingPathComponent("summary.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return json["facts"] as? [String: Any]
    }
}
