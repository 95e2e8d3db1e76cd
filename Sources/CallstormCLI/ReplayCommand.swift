import Foundation
import Quantities
import Scenario

/// `callstorm replay repro-<n>.yaml [--repeat K]`: runs a repro's one call K times, each a fresh run with fresh
/// embedded servers in this process, checks each history, and says in how many the violation came back.
enum ReplayCommand {
    struct Tally {
        var repetitions: Int
        /// Repetitions whose history broke the repro's rule (any rule when the repro names none).
        var reproduced: Int
        /// Violations per rule over all repetitions.
        var rules: [String: Int]
        var lines: [String]
    }

    static let maximumRepeat = 1000

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: ["repeat", "out"], boolean: ["help", "quiet"])
        if parsed.has("help") {
            print(Help.replay)
            return .passed
        }
        guard parsed.positional.count == 1, let file = parsed.positional.first else {
            throw .usage("replay takes exactly one repro file")
        }
        let repeatCount = try parsed.integer("repeat", default: 1, in: 1...maximumRepeat)
        let tally = try replay(file, repeat: repeatCount, out: parsed.value("out"), quiet: parsed.has("quiet"))
        tally.lines.forEach { print($0) }
        return tally.reproduced > 0 ? .thresholdsFailed : .passed
    }

    /// Runs the repro `repeat` times. With `out`, repetition k's run directory is `out/k` and is kept; otherwise
    /// each lives in a temporary directory removed afterwards.
    static func replay(_ file: String, repeat count: Int, out: String?, quiet: Bool = true) throws(CLIError) -> Tally {
        let scenario = try ValidateCommand.loadScenario(file)
        guard let replay = scenario.replay else {
            throw .usage("\(file) has no 'replay:' section; replay runs the repro-<n>.yaml files a run writes")
        }
        let rule = replay.rule
        var tally = Tally(repetitions: count, reproduced: 0, rules: [:], lines: [])
        let fm = FileManager.default
        for k in 1...count {
            let dir: URL
            if let out {
                dir = URL(fileURLWithPath: out).appendingPathComponent("\(k)")
            } else {
                dir = fm.temporaryDirectory.appendingPathComponent("callstorm-replay-\(getpid())-\(UUID().uuidString)")
            }
            defer { if out == nil { try? fm.removeItem(at: dir) } }
            var options = RunCommand.Options(file: file)
            options.out = dir.path
            options.quiet = true
            // Kept runs get their whole report; a repetition removed afterwards needs only its history.
            let runDirectory = out != nil ? try RunCommand.perform(options).runDirectory
                : try RunSession(options).runForHistory()
            let check: HistoryCheck.Outcome?
            do {
                check = try HistoryCheck.run(runDirectory, writeFiles: out != nil)
            } catch {
                throw .harness("cannot check repetition \(k) in \(dir.path): \(error)")
            }
            guard let check else { throw .harness("repetition \(k) wrote no history.jsonl in \(dir.path)") }
            var found: [String: Int] = [:]
            for v in check.report.violations { found[v.rule.rawValue, default: 0] += 1 }
            tally.rules.merge(found, uniquingKeysWith: +)
            let hit = rule.map { found[$0] != nil } ?? !found.isEmpty
            if hit { tally.reproduced += 1 }
            if !quiet {
                let what = found.isEmpty ? "no violation"
                    : found.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
                FileHandle.standardError.write(Data(
                    "repetition \(k)/\(count): \(hit ? "reproduced" : "not reproduced") (\(what))\n".utf8))
            }
        }
        let offset = replay.offsetNanos.map { ", offset \(Quantity.format(signedNanos: $0))" } ?? ""
        tally.lines.append("replay \(file): call \(replay.call)\(offset), seed \(scenario.seed): " +
                           "\(rule ?? "a violation") reproduced in \(tally.reproduced) of \(count) repetitions")
        for (r, n) in tally.rules.sorted(by: { $0.key < $1.key }) {
            tally.lines.append("  \(r): \(n) violations in all")
        }
        return tally
    }
}
