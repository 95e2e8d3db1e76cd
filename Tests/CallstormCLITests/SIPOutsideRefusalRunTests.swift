@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 32, acceptance 1 and 2, end to end: the devices of Scenarios/sip/outside-callee.yaml call an outside
/// service through Kamailio. A SIPp UAS that refuses every third call 486 Busy Here (Fixtures/sipp/uas-busy.xml with
/// answers.csv): callstorm's completed and failed calls are SIPp's successful and failed ones, each failure named
/// by its status, and the verdict fails unless the flow declares refusals (`expect:`). A service that is down (its
/// contact registered, nothing listening: Kamailio answers 408 at fr_timer): no call completes, the run exits 4 and
/// says what refused them.
final class SIPOutsideRefusalRunTests: XCTestCase {
    private static let root = CustomAPIExample.root
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sipp")

    /// outside-callee.yaml at this Kamailio, `calls` calls, `action_timeout` past Kamailio's 5 s fr_timer, the flow's
    /// `expect` line added when given.
    private static func scenario(port: Int, calls: Int, seed: Int) throws -> String {
        try String(contentsOf: root.appendingPathComponent("Scenarios/sip/outside-callee.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "seed: 26", with: "seed: \(seed)")
            .replacingOccurrences(of: "rate: 5/s, for: 2s", with: "rate: 5/s, for: \(calls / 5)s")
            .replacingOccurrences(of: "action_timeout: 5s", with: "action_timeout: 8s")
            + "slo: { invariant_violations: \"== 0\" }\n"
    }

    /// Scenarios/sip/busy-service.yaml as shipped (15 calls, the 486 declared), at this Kamailio.
    private static func busyService(port: Int, seed: Int) throws -> String {
        try String(contentsOf: root.appendingPathComponent("Scenarios/sip/busy-service.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "seed: 32", with: "seed: \(seed)")
    }

    /// Registers `echo` at Kamailio with its contact on `port` (SIPp's register.xml).
    private func registerEcho(at port: Int, kamailio: KamailioProcess, in dir: URL) throws {
        let registerPort = try XCTUnwrap(KamailioProcess.freePort())
        let register = try ChildProcess.run("/usr/bin/sipp", [
            "-sf", Self.root.appendingPathComponent("deploy/sipp/register.xml").path, "-s", "echo",
            "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(registerPort)", "-m", "1",
            "-au", "echo", "-ap", "callstorm", "-key", "uas_port", "\(port)",
            "-timeout", "20s", "-timeout_error", "-nostdin",
        ], in: dir, logs: dir, name: "sipp-register", seconds: 30)
        XCTAssertEqual(register.status, 0, register.out.suffix(2000) + register.err)
    }

    /// Runs against a busy service that refuses every third of `calls` calls; returns the run, SIPp's counts and
    /// the run's history (its directory is gone after).
    private func runAgainstBusyService(calls: Int, seed: Int, declared: Bool = false) throws
        -> (run: RunCommand.Outcome, successful: Int?, failed: Int?, history: String)
    {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-outside-refusal")
        defer { TemporaryDirectory.remove(dir) }
        let (uas, uasPort) = try ChildProcess.startUDPListener("/usr/bin/sipp", arguments: { port in [
            "-sf", Self.fixtures.appendingPathComponent("uas-busy.xml").path,
            "-inf", Self.fixtures.appendingPathComponent("answers.csv").path, "-s", "echo", "-i", "127.0.0.1",
            "-p", "\(port)", "-m", "\(calls)", "-timeout", "60s", "-nostdin",
            "-trace_stat", "-stf", dir.appendingPathComponent("sipp.csv").path,
        ] }, in: dir, logs: dir, name: "sipp-uas", freePort: KamailioProcess.freePort)
        defer { uas.stop() }
        try registerEcho(at: uasPort, kamailio: kamailio, in: dir)
        let text = declared ? try Self.busyService(port: kamailio.port, seed: seed)
            : try Self.scenario(port: kamailio.port, calls: calls, seed: seed)
        let run = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: run.runDirectory)
        // SIPp exits 1 when a call failed: each refused one did.
        XCTAssertEqual(uas.wait(seconds: 30), 1, uas.outputText.suffix(3000).description + uas.errorText)
        let stats = try SIPpStats(dir.appendingPathComponent("sipp.csv"))
        let history = try String(contentsOf: run.runDirectory.appendingPathComponent("history.jsonl"),
                                 encoding: .utf8)
        return (run, stats["SuccessfulCall(C)"], stats["FailedCall(C)"], history)
    }

    func testABusyServiceRefusingAThirdOfTheCallsFailsThemNamedByStatusAsSIPpCountsThemAndFailsTheRun() throws {
        let calls = 15
        let (run, successful, failed, history) = try runAgainstBusyService(calls: calls, seed: 61)
        let c = run.result.recorder.counters
        let all = "\(c.sorted { $0.key < $1.key }) \(run.result.notes)"
        XCTAssertEqual(successful, 10)
        XCTAssertEqual(failed, 5)
        XCTAssertEqual(c[MetricName.callsStarted], Int64(calls), all)
        XCTAssertEqual(c[MetricName.callsCompleted].map(Int.init), successful, all)
        XCTAssertEqual(c[MetricName.callsFailed].map(Int.init), failed, all)
        XCTAssertEqual(c["calls.failed.sip_486"].map(Int.init), failed, all)
        XCTAssertNil(c["events.ended.remoteEnded"], "a refusal is no remote end: \(all)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        XCTAssertEqual(run.exitCode, .thresholdsFailed, "\(run.verdict.reasons)")
        XCTAssertTrue(run.verdict.reasons.contains { $0.hasPrefix("5 calls were refused before anyone answered "
            + "(sip_486 ×5)") }, "\(run.verdict.reasons)")
        XCTAssertEqual(history.components(separatedBy: "\"reason\":\"failed_486\"").count - 1, 5,
                       "each refused call's dialog line")
    }

    /// Scenarios/sip/busy-service.yaml: the same service, the 486 declared in the flow's `expect:`.
    func testABusyServiceWhoseRefusalsTheFlowDeclaresPassesWithThemCountedAsDeclared() throws {
        let calls = 15
        let (run, successful, failed, _) = try runAgainstBusyService(calls: calls, seed: 62, declared: true)
        let c = run.result.recorder.counters
        let all = "\(c.sorted { $0.key < $1.key }) \(run.result.notes)"
        XCTAssertEqual(successful, 10)
        XCTAssertEqual(failed, 5)
        XCTAssertEqual(c[MetricName.callsCompleted], Int64(calls), all)
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["calls.unanswered.sip_486"].map(Int.init), failed, all)
        XCTAssertEqual(run.exitCode, .passed, "\(run.verdict.reasons)")
    }

    func testAServiceThatIsDownCompletesNothingExitsFourAndSaysKamailioAnswered408() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("sip-outside-down")
        defer { TemporaryDirectory.remove(dir) }
        // The service registered, then went away: its contact's port has nobody behind it.
        let deadPort = try XCTUnwrap(KamailioProcess.freePort())
        try registerEcho(at: deadPort, kamailio: kamailio, in: dir)
        let calls = 10
        let run = try runScenario(Self.scenario(port: kamailio.port, calls: calls, seed: 63), in: dir)
        try assertOutcomesAgree(run: run.runDirectory)
        let c = run.result.recorder.counters
        let all = "\(c.sorted { $0.key < $1.key }) \(run.result.notes)"
        XCTAssertEqual(c[MetricName.callsStarted], Int64(calls), all)
        XCTAssertNil(c[MetricName.callsCompleted], all)
        XCTAssertEqual(c["calls.failed.sip_408"], Int64(calls), all)
        XCTAssertEqual(run.exitCode, .nothingDone, "\(run.verdict.reasons)")
        XCTAssertEqual(run.verdict.nothingDone, "the run did nothing: none of the 10 calls started connected (none "
            + "was answered, and none ended unanswered by its flow's steps or as its 'expect' declares): 10 failed, "
            + "refused: sip_408 ×10")
    }
}
