@testable import CallstormCLI
import Foundation
import Reports
import TestSupport
import XCTest

/// Issue 27, acceptance 5: a run that did nothing (no device registered, no call started, or none completed)
/// exits 4, thresholds or not, so nightly CI cannot stay green against a server nobody reached.
final class NothingDoneExitTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("nothing-done") }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    /// No `slo:` at all, against a port where nothing listens.
    private func scenario(port: Int) -> String {
        """
        name: nobody-home
        seed: 3
        devices: 4
        target: { url: "http://127.0.0.1:\(port)" }
        push: { listen: "127.0.0.1:0", deadline: 1s, tls: false }
        load:
          - hold: { rate: 4/s, for: 1s }
        mix: { incoming-1to1: 100 }
        drain: 2s
        action_timeout: 1s
        """
    }

    func testRunAgainstAPortWhereNothingListensExitsFourWithoutAnySLO() throws {
        let port = try CustomAPIExample.freePort()  // served a moment ago, closed now
        let outcome = try runScenario(scenario(port: port), in: dir)
        XCTAssertEqual(outcome.exitCode, .nothingDone)
        XCTAssertEqual(outcome.exitCode.rawValue, 4)
        XCTAssertFalse(outcome.verdict.passed)
        XCTAssertEqual(outcome.verdict.nothingDone, "the run did nothing: no device registered with the target")
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.verdict.nothingDone, outcome.verdict.nothingDone)
        XCTAssertEqual(summary.verdict.reasons.first, outcome.verdict.nothingDone)
    }

    func testTheProcessExitStatusIsFour() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let port = try CustomAPIExample.freePort()
        let file = dir.appendingPathComponent("nobody.yaml")
        try scenario(port: port).write(to: file, atomically: true, encoding: .utf8)
        let validate = try ChildProcess.run(binary, ["validate", file.path], in: dir, logs: dir, name: "validate",
                                            seconds: 60)
        XCTAssertEqual(validate.status, 0, validate.err)
        XCTAssertTrue(validate.err.contains("warning: no 'slo:' section"), validate.err)
        let run = try ChildProcess.run(binary, ["run", file.path, "--out", dir.appendingPathComponent("run").path,
                                                "--quiet"], in: dir, logs: dir, name: "run", seconds: 120)
        XCTAssertEqual(run.status, 4, run.err)
    }

    func testEmptyRunRulesNameWhatDidNotHappen() {
        func why(_ c: [String: Int64], devices: Int = 10, shard: Bool = false) -> String? {
            Verdict.nothingDone(counters: c, devices: devices, isShard: shard)
        }
        XCTAssertEqual(why([:]), "the run did nothing: no device registered with the target")
        XCTAssertEqual(why(["devices.registered": 10]), "the run did nothing: no call was started")
        XCTAssertNil(why(["devices.registered": 5], shard: true), "a shard may be planned no call")
        XCTAssertEqual(why(["devices.registered": 5, "calls.planned": 2], shard: true),
                       "the run did nothing: no call was started")
        XCTAssertEqual(why(["devices.registered": 10, "calls.started": 7, "calls.failed": 7]),
                       "the run did nothing: none of the 7 calls started connected (none was answered, and none "
                       + "ended unanswered by its flow's steps or as its 'expect' declares): 7 failed")
        // Issue 32: a run whose every call was refused says by what.
        XCTAssertEqual(why(["devices.registered": 10, "calls.started": 7, "calls.failed": 6, "calls.missed": 1,
                            "calls.failed.sip_408": 4, "calls.failed.sip_486": 2]),
                       "the run did nothing: none of the 7 calls started connected (none was answered, and none "
                       + "ended unanswered by its flow's steps or as its 'expect' declares): 6 failed, refused: "
                       + "sip_408 ×4, sip_486 ×2; 1 missed")
        XCTAssertNil(why(["devices.registered": 10, "calls.started": 7, "calls.completed": 1]))
        let verdict = Verdict(thresholds: [], nothingDone: why([:]))
        XCTAssertFalse(verdict.passed)
        XCTAssertEqual(ExitCode.of(verdict, interrupted: false), .nothingDone)
        XCTAssertEqual(ExitCode.of(verdict, interrupted: true), .interrupted)
        XCTAssertEqual(ExitCode.of(Verdict(thresholds: []), interrupted: false), .passed)
    }
}
