import Checker
import Foundation

/// Runs the history checker on a run directory's `history.jsonl` and writes `checker.json` and, for the first
/// violations, `violation-<n>.svg` timelines beside it.
enum HistoryCheck {
    struct Outcome {
        var report: CheckReport
        var lines: [String]
    }

    static func run(_ runDirectory: URL, writeFiles: Bool = true) throws -> Outcome? {
        let url = runDirectory.appendingPathComponent("history.jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let events = try HistoryReader.read(contentsOf: url)
        let report = HistoryChecker.check(events)
        var lines = ["history checker: \(report.operations) operations, \(report.indeterminate) indeterminate, " +
                     "\(report.violations.count) violations"]
        for (rule, count) in report.countsByRule where count > 0 {
            lines.append("  \(rule.rawValue): \(count)")
        }
        for v in report.violations.prefix(5) {
            lines.append("  \(v.rule.rawValue): \(v.message) (conversations \(v.conversations.joined(separator: ", "))" +
                         "; ops \(v.ops.map(String.init).joined(separator: ", ")))")
        }
        if writeFiles {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: runDirectory.appendingPathComponent("checker.json"))
            for (n, v) in report.violations.prefix(10).enumerated() {
                try Timeline.svg(for: v, in: events).write(
                    to: runDirectory.appendingPathComponent("violation-\(n + 1).svg"), atomically: true, encoding: .utf8)
            }
        }
        return Outcome(report: report, lines: lines)
    }
}

/// `callstorm check RUN_DIR`: check a finished (or killed) run's history again; exit 1 on a violation.
enum CheckCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: [], boolean: ["help"])
        if parsed.has("help") {
            print(Help.check)
            return .passed
        }
        guard parsed.positional.count == 1 else { throw .usage("check takes one run directory") }
        let run = URL(fileURLWithPath: parsed.positional[0])
        do {
            guard let outcome = try HistoryCheck.run(run) else {
                throw CLIError.usage("\(run.path) has no history.jsonl")
            }
            outcome.lines.forEach { print($0) }
            return outcome.report.violations.isEmpty ? .passed : .thresholdsFailed
        } catch let error as CLIError {
            throw error
        } catch {
            throw .invalidScenario("cannot check \(run.path): \(error)")
        }
    }
}
