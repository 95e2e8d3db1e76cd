@testable import CallstormCLI
import Foundation
import Reports
import TestSupport
import XCTest

/// Scenarios/chaos/sockets.yaml against the correct reference target: every socket fault kind shows in
/// faults.csv and the fault table, the socket books balance with faults on, every socket the target lost was
/// lost to callstorm's own faults, and the same seed injects the same faults.
final class SocketChaosTests: XCTestCase {
    static let example = ChaosScenarioTests.root.appendingPathComponent("Scenarios/chaos/sockets.yaml")
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("socket-chaos")
    }

    override func tearDownWithError() throws { TemporaryDirectory.remove(dir) }

    private struct Run {
        var outcome: RunCommand.Outcome
        var summary: ReportSummary
        /// faults.csv rows without their instant: window, kind, subject, call, role, seq.
        var rows: [String]
        var html: String
        func counter(_ name: String) -> Int64 { summary.counters[name] ?? 0 }
    }

    private func run(_ file: URL, name: String) throws -> Run {
        var options = RunCommand.Options(file: file.path)
        options.out = dir.appendingPathComponent(name).path
        options.quiet = true
        let outcome = try RunCommand.perform(options)
        let directory = outcome.runDirectory
        let summary = try ReportSummary.decode(from: Data(contentsOf: directory.appendingPathComponent("summary.json")))
        let rows = try String(contentsOf: directory.appendingPathComponent("faults.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").dropFirst().joined(separator: ",") }
        let html = try String(contentsOf: directory.appendingPathComponent("report.html"), encoding: .utf8)
        return Run(outcome: outcome, summary: summary, rows: rows, html: html)
    }

    private func assertBooksBalanceAndBlameNothingOnTheTarget(_ run: Run, file: StaticString = #filePath,
                                                               line: UInt = #line) {
        let opened = run.counter("socket.opened")
        XCTAssertGreaterThan(opened, 0, file: file, line: line)
        XCTAssertEqual(opened, run.counter("socket.closed.device") + run.counter("socket.closed.server")
            + run.counter("socket.lost") + run.counter("socket.open_at_stop"), "the socket books", file: file,
            line: line)
        // The reference target is correct: every socket lost or closed by it was ended by an injected fault.
        XCTAssertEqual(run.counter("socket.lost"), run.counter("socket.lost.injected"), file: file, line: line)
        XCTAssertEqual(run.counter("socket.closed.server"), run.counter("socket.closed.server.injected"),
                       file: file, line: line)
        XCTAssertEqual(run.counter("socket.open_at_stop"), 120, "every device came back after every fault",
                       file: file, line: line)
        XCTAssertEqual(run.counter("invariant_violations"), 0, "\(run.summary.notes)", file: file, line: line)
        XCTAssertEqual(run.outcome.exitCode, .passed, "\(run.summary.verdict.reasons)", file: file, line: line)
        // An action in flight when its socket is dropped can fail (`reset`): that is the fault's doing, and the
        // checker sets any finding on its path apart. How many calls a window meets depends on how long calls
        // take (a loaded machine stretches them), so what is pinned is that every call that did not complete
        // met an injected fault, and most completed.
        XCTAssertEqual(run.counter("calls.failed_without_fault"), 0, file: file, line: line)
        XCTAssertLessThanOrEqual(run.counter("calls.started") - run.counter("calls.completed"),
                                 run.counter("calls.attributed_to_faults"), file: file, line: line)
        XCTAssertGreaterThanOrEqual(run.counter("calls.completed") * 100, run.counter("calls.started") * 75,
                                    file: file, line: line)
    }

    func testEverySocketFaultShowsBalancesTheBooksAndTheSameSeedInjectsTheSameFaults() throws {
        let first = try run(Self.example, name: "first")
        let kinds = Set(first.rows.map { String($0.split(separator: ",")[1]) })
        XCTAssertEqual(kinds, ["device.socket_dropped", "device.socket_closed_1001", "device.socket_stalled",
                               "target.socket_storm"])
        assertBooksBalanceAndBlameNothingOnTheTarget(first)
        XCTAssertEqual(first.counter("socket.storm_dropped"), 120, "the storm ended every device's socket")
        XCTAssertGreaterThanOrEqual(first.counter("socket.lost.injected"),
                                    first.counter("faults.device.socket_dropped")
                                        + first.counter("faults.device.socket_closed_1001") + 120)
        XCTAssertTrue(first.html.contains("id=\"faults\""))
        XCTAssertTrue(first.html.contains("socket_drop 30% (abrupt)"), "the fault table says what was set")
        XCTAssertTrue(first.html.contains("device.socket_stalled"), "and what was injected")
        XCTAssertTrue(first.html.contains("sockets lost/s"))

        let second = try run(Self.example, name: "second")
        XCTAssertEqual(second.rows.sorted(), first.rows.sorted(), "same seed, same faults")
        assertBooksBalanceAndBlameNothingOnTheTarget(second)
    }

    func testAStormWithACloseCodeIsClosedByTheServerAndCountedAsInjected() throws {
        // The example's storm alone, early in a 3 s load: the other windows are the first test's to show.
        let example = try String(contentsOf: Self.example, encoding: .utf8)
        let head = try XCTUnwrap(example.range(of: "\nfaults:\n")).lowerBound
        let shortLoad = "hold: { rate: 10/s, for: 3s }"
        let text = example[..<head].replacingOccurrences(of: "hold: { rate: 10/s, for: 8s }", with: shortLoad) + """

            faults:
              - { name: storm, at: 1500ms, for: 500ms, target: { socket_storm: { code: 1012 } } }
            slo:
              invariant_violations: "== 0"

            """
        XCTAssertTrue(text.contains(shortLoad), "the example's load changed: \(example[..<head])")
        let file = dir.appendingPathComponent("storm-1012.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let run = try run(file, name: "storm-1012")
        XCTAssertTrue(run.rows.contains { $0.hasPrefix("storm,target.socket_storm_1012,target,") }, "\(run.rows)")
        XCTAssertEqual(run.counter("socket.close.1012"), 120)
        XCTAssertEqual(run.counter("socket.closed.server.injected"), 120)
        assertBooksBalanceAndBlameNothingOnTheTarget(run)
    }

    func testAStormAgainstAnotherTargetIsRefusedWithExitCode2BeforeAnythingRuns() {
        // The scenario's own url target is refused at validation (FaultSectionTests); --target is refused here.
        let code = Command.run(["run", Self.example.path, "--target", "http://127.0.0.1:9", "--quiet",
                                "--out", dir.appendingPathComponent("refused").path])
        XCTAssertEqual(code, .invalidInput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("refused").path))
    }
}
