@testable import CallstormCLI
import Foundation
import Reports
import XCTest

/// `abort_on_fail` thresholds are judged while the run goes, and the first failure stops it with exit code 1.
final class AbortOnFailTests: XCTestCase {
    func testAFailingAbortOnFailThresholdStopsTheRunEarlyWithExitCode1() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("callstorm-abort-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let yaml = """
            name: abort
            seed: 9
            devices: 40
            load:
              - hold: { rate: 20/s, for: 60s }
            behavior:
              answer_after: { constant: 50ms }
              talk: { constant: 200ms }
            drain: 5s
            slo:
              push_to_report.max: { threshold: "< 1us", abort_on_fail: true }
              calls.failed: "== 0"
            """
        let file = dir.appendingPathComponent("abort.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        var options = RunCommand.Options(file: file.path)
        options.out = dir.appendingPathComponent("run").path
        options.quiet = true
        let began = Date()
        let outcome = try RunCommand.perform(options)
        XCTAssertEqual(outcome.exitCode, .thresholdsFailed)
        XCTAssertLessThan(Date().timeIntervalSince(began), 30, "stopped long before the 60 s of arrivals")
        XCTAssertFalse(outcome.verdict.passed)
        XCTAssertTrue(outcome.verdict.reasons.contains { $0.contains("aborted by abort_on_fail") },
                      "\(outcome.verdict.reasons)")
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.thresholds?.first?.passed, false)
    }
}
