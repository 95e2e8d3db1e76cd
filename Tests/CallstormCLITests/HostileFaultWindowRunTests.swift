import Checker
import Foundation
import Reports
import RunFormats
import TestSupport
import XCTest

/// Issue 25, acceptance 4: fault windows named with a comma, quotes and non-ASCII text run end to end with the
/// callstorm binary; faults.csv keeps each name in one field, and the findings the faults caused are attributed to
/// them, not counted against the server.
final class HostileFaultWindowRunTests: XCTestCase {
    private var dir: URL!
    private var binary: String!

    override func setUpWithError() throws {
        guard let binary = ChildProcess.callstormBinary else {
            throw XCTSkip("CALLSTORM_BIN is not set (make test sets it to the callstorm binary it built)")
        }
        self.binary = binary
        dir = try TemporaryDirectory.make("hostile-window")
    }

    override func tearDown() { if let dir { TemporaryDirectory.remove(dir) } }

    func testAWindowNamedWithACommaAndAQuoteRunsAndItsFindingsAreAttributedToIt() throws {
        let phones = "phones, \"flaky\""
        let pushes = "pushes, «late» ✓"
        let file = dir.appendingPathComponent("hostile.yaml")
        // Every answer in the first window fails at the device (media setup), so its final view disagrees with
        // the server's: a finding on a path the fault touched (docs/CHECKER.md).
        try """
            name: hostile-windows
            seed: 25
            devices: 100
            target: { embedded: true }
            push: { listen: "127.0.0.1:0", deadline: 2s }
            load:
              - hold: { rate: 20/s, for: 3s }
            mix: { incoming-1to1: 100 }
            behavior:
              answer_after: { uniform: [50ms, 150ms] }
              talk: { constant: 300ms }
            drain: 10s
            action_timeout: 3s
            faults:
              - { name: 'phones, "flaky"', at: 500ms, for: 1500ms, device: { join_failure: 100% } }
              - { name: 'pushes, «late» ✓', at: 0s, for: 3s, push: { delay: 10ms } }
            slo:
              invariant_violations: "== 0"
            """.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let run = try ChildProcess.run(binary, ["run", file.path, "--out", out.path, "--quiet"], in: dir, logs: dir,
                                       name: "run", seconds: 120)
        XCTAssertEqual(run.status, 0, run.err)

        // faults.csv: each name whole, in its own field, on every row of its window.
        let rows = FaultRow.rows(fromCSV: try String(contentsOf: out.appendingPathComponent("faults.csv"),
                                                     encoding: .utf8))
        XCTAssertEqual(Set(rows.map(\.window)), [phones, pushes], "\(rows.prefix(5))")
        XCTAssertTrue(rows.filter { $0.window == phones }.allSatisfy { $0.kind == "device.join_failed" })
        XCTAssertTrue(rows.filter { $0.window == pushes }.allSatisfy { $0.kind == "push.delayed" })

        // The checker attributed the failed joins' findings to their fault; none is counted against the server.
        let report = try JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: out
            .appendingPathComponent("checker.json")))
        XCTAssertEqual(report.violations.count, 0, "\(report.violations.map(\.message))")
        let attributed = try XCTUnwrap(report.attributed)
        XCTAssertFalse(attributed.isEmpty, "the failed joins left views that disagree with the server")
        XCTAssertTrue(attributed.allSatisfy { $0.faults.contains("device.join_failed") },
                      "\(attributed.map(\.faults))")
        let summary = try ReportSummary.decode(from: Data(contentsOf: out.appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.counters["invariant_violations.attributed_to_faults"], Int64(attributed.count))
        XCTAssertEqual(summary.counters["invariant_violations"] ?? 0, 0)

        // The report's fault table names both windows (escaped for HTML) with what they injected.
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("phones, "), "the first window's name is in the report")
        XCTAssertTrue(html.contains("«late» ✓"), "the second window's name is in the report")
    }
}
