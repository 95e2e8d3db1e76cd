import Determinism
import Foundation
import Metrics
import Reports
import Results
import Scenario
import Thresholds

/// `callstorm merge DIR... --out DIR`: one report from the run directories of a distributed run's shards.
///
/// Histograms and counters add; every per-second series is moved onto one wall-clock axis (each shard's second 0
/// is a whole Unix second, recorded in its shard.json) before adding; action and push rows are concatenated;
/// thresholds are evaluated on the merged recorder only, so a limit that only the union breaks fails.
enum MergeCommand {
    static let help = """
        Usage: callstorm merge DIR... --out DIR [--threshold "KEY OP LIMIT; ..."] [--quiet]

        Merges the run directories written by `callstorm run --shard i/N` into one report in --out: histograms and
        counters added, series aligned by wall-clock second, actions.csv and pushes.csv concatenated.
          --threshold   thresholds evaluated on the merged result besides the scenario's slo, e.g.
                        "push_to_report.p99 < 1s; calls.failed == 0" (keys as in slo: docs in README)
        Exit codes: 0 passed, 1 a threshold failed, 2 bad input (missing results, duplicate or mismatched shards).
        """

    struct Part {
        var directory: URL
        var record: ShardRecord?
        var recorder: Recorder
    }

    struct Outcome {
        var exitCode: ExitCode
        var files: ReportFiles
        var verdict: Verdict
        var thresholds: [ThresholdResult]
    }

    /// `KEY OP LIMIT; ...` into thresholds, with every problem at once.
    static func parseThresholds(_ text: String) -> (thresholds: [Threshold], errors: [String]) {
        var thresholds: [Threshold] = []
        var errors: [String] = []
        for part in text.split(separator: ";") {
            let words = part.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard words.count == 2 else {
                errors.append("'\(part.trimmingCharacters(in: .whitespaces))' is not KEY OP LIMIT")
                continue
            }
            do {
                thresholds.append(try Threshold.parse(key: String(words[0]),
                                                      expression: words[1].trimmingCharacters(in: .whitespaces),
                                                      source: "--threshold"))
            } catch {
                errors.append(error.message)
            }
        }
        return (thresholds, errors)
    }

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: ["out", "threshold"], boolean: ["help", "quiet"],
                                   emptyAllowed: ["threshold"])
        if parsed.has("help") {
            print(help)
            return .passed
        }
        guard !parsed.positional.isEmpty else { throw .usage("merge needs at least one run directory") }
        guard let out = parsed.value("out") else { throw .usage("merge needs --out DIR") }
        let (thresholds, errors) = parseThresholds(parsed.value("threshold") ?? "")
        guard errors.isEmpty else {
            throw .badValue(flag: "threshold", value: parsed.value("threshold") ?? "",
                            expected: "KEY OP LIMIT; ... (\(errors.joined(separator: "; ")))")
        }
        let outcome = try perform(parsed.positional.map { URL(fileURLWithPath: $0) },
                                  out: URL(fileURLWithPath: out), thresholds: thresholds)
        if !parsed.has("quiet") {
            for item in outcome.thresholds { print(item.summary) }
            for reason in outcome.verdict.reasons where !outcome.thresholds.contains(where: { reason.contains($0.threshold.key) }) {
                print(reason)
            }
        }
        print("report: \(outcome.files.html.path)")
        return outcome.exitCode
    }

    /// The whole merge, in phases like a run's (`RunSession`): load the parts, check they are one run, combine
    /// their recorders on one time axis, then report. Separate from flag parsing so tests can drive it.
    static func perform(_ directories: [URL], out: URL,
                        thresholds extra: [Threshold]) throws(CLIError) -> Outcome {
        let parts = try load(directories)
        var notes = try check(parts)
        let merged = try combine(parts)
        notes += timingNotes(parts)
        return try report(parts, merged: merged, out: out, thresholds: extra, notes: notes)
    }

    /// Each directory's recorder and shard.json (absent for a run that was not a shard).
    static func load(_ directories: [URL]) throws(CLIError) -> [Part] {
        var parts: [Part] = []
        for dir in directories {
            let recorder: Recorder
            do {
                recorder = try RunResults.loadRecorder(run: dir)
            } catch {
                throw .cannotRead(what: "the results", path: dir.path, cause: error)
            }
            let recordURL = dir.appendingPathComponent(ShardRecord.fileName)
            var record: ShardRecord?
            if FileManager.default.fileExists(atPath: recordURL.path) {
                do {
                    record = try ShardRecord.read(run: dir)
                } catch {
                    throw .cannotRead(what: ShardRecord.fileName, path: recordURL.path, cause: error)
                }
            }
            parts.append(Part(directory: dir, record: record, recorder: recorder))
        }
        return parts
    }

    /// One recorder on one time axis: the earliest shard's second 0; the others move by whole seconds.
    static func combine(_ parts: [Part]) throws(CLIError) -> Recorder {
        let base = baseUnixSeconds(parts)
        var merged = Recorder(runStartNanos: parts[0].recorder.runStartNanos,
                              lowestDiscernibleValue: parts[0].recorder.lowestDiscernibleValue,
                              highestTrackableValue: parts[0].recorder.highestTrackableValue,
                              significantDigits: parts[0].recorder.significantDigits)
        for part in parts {
            let shift = part.record.map { Int($0.originUnixSeconds - base) } ?? 0
            guard part.recorder.significantDigits == merged.significantDigits,
                  part.recorder.highestTrackableValue == merged.highestTrackableValue,
                  part.recorder.lowestDiscernibleValue == merged.lowestDiscernibleValue else {
                throw .usage("\(part.directory.path) uses another histogram configuration; it cannot be merged")
            }
            merged.merge(part.recorder.shifted(bySeconds: shift))
        }
        return merged
    }

    static func baseUnixSeconds(_ parts: [Part]) -> Int64 {
        parts.compactMap { $0.record?.originUnixSeconds }.min() ?? 0
    }

    /// Rows and histories concatenated, the union checked, thresholds judged on the merged recorder, every report
    /// file written into `out`.
    static func report(_ parts: [Part], merged: Recorder, out: URL, thresholds extra: [Threshold],
                       notes: [String]) throws(CLIError) -> Outcome {
        var notes = notes
        let facts = mergedFacts(parts)
        let written: RunReporting.Written
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            for rows in RunBundle.Rows.allCases {
                try concatenateRows(parts.map(\.directory), name: rows.fileName, into: out)
            }
            // The shards' histories on one axis, checked as one: each shard's own violations are already in the
            // merged counters; this writes checker.json and timelines for the union.
            if try concatenateHistories(parts, baseUnixSeconds: baseUnixSeconds(parts), into: out) > 0,
               let check = try HistoryCheck.run(out) {
                notes += check.lines
            }
            try copyScenario(from: parts[0].directory, to: out)
            // The scenario's slo and the flag's thresholds, on the merged data only: a limit that only the union
            // of the shards breaks fails here.
            let thresholds = RunReporting.thresholds(run: out, notes: &notes) + extra
            if thresholds.isEmpty {
                let c = merged.counters
                notes.append("No thresholds: \(c[MetricName.callsCompleted] ?? 0) calls completed, " +
                    "\(c[MetricName.callsFailed] ?? 0) failed, " +
                    "\(c[MetricName.pushDeadlineMissed] ?? 0) push deadlines missed " +
                    "(merged over \(parts.count) shards).")
            }
            written = try RunReporting.write(run: out, facts: facts, recorder: merged, thresholds: thresholds,
                                             notes: notes)
        } catch {
            throw .cannotWrite(what: "the merged report", directory: out.path, cause: error)
        }
        let code: ExitCode = written.verdict.passed ? .passed : .of(written.verdict, interrupted: facts.interrupted)
        return Outcome(exitCode: code, files: written.files, verdict: written.verdict, thresholds: written.thresholds)
    }

    /// The first shard's scenario copy, so the merged directory's slo is the run's.
    static func copyScenario(from part: URL, to out: URL) throws {
        let scenario = RunBundle(part).scenario
        let target = RunReporting.scenarioURL(out)
        if FileManager.default.fileExists(atPath: scenario.path), !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.copyItem(at: scenario, to: target)
        }
    }

    /// Refuses parts that cannot be one run (another scenario, seed or shard count, a shard given twice) and
    /// notes shards that are missing.
    static func check(_ parts: [Part]) throws(CLIError) -> [String] {
        let records = parts.compactMap(\.record)
        var notes: [String] = []
        if records.count < parts.count {
            notes.append("\(parts.count - records.count) input(s) had no shard.json; their series are not aligned.")
        }
        guard let first = records.first else { return notes }
        for r in records.dropFirst() {
            if r.scenario != first.scenario || r.seed != first.seed || r.shardCount != first.shardCount
                || r.devices != first.devices {
                throw .usage("shard \(r.shard) ran scenario '\(r.scenario)' seed \(r.seed) with \(r.devices) devices, " +
                    "but shard \(first.shard) ran '\(first.scenario)' seed \(first.seed) with \(first.devices): " +
                    "they are not parts of one run")
            }
        }
        var seen: [Int: Int] = [:]
        for r in records { seen[r.shardIndex, default: 0] += 1 }
        if let twice = seen.first(where: { $0.value > 1 }) {
            throw .usage("shard \(twice.key)/\(first.shardCount) is given \(twice.value) times; its calls would be counted twice")
        }
        let missing = (0..<first.shardCount).filter { seen[$0] == nil }
        if !missing.isEmpty {
            notes.append("Shards missing from this merge: " +
                missing.map { "\($0)/\(first.shardCount)" }.joined(separator: ", ") +
                "; the report covers only part of the plan.")
        }
        return notes
    }

    /// Clock offsets and how far apart the shards' load starts were, in wall-clock time.
    static func timingNotes(_ parts: [Part]) -> [String] {
        var notes: [String] = []
        var starts: [Double] = []
        for part in parts {
            guard let r = part.record else { continue }
            var start = Double(r.originUnixSeconds) + r.loadStartSecond
            if let offset = r.clockOffset {
                notes.append("Shard \(r.shard) clock offset: \(offset.text).")
                start += offset.offsetSeconds
            } else {
                notes.append("Shard \(r.shard) clock offset: not measured.")
            }
            starts.append(start)
            for note in r.notes.prefix(5) where !note.hasPrefix("Shard ") && !note.hasPrefix("Clock offset") {
                notes.append("[shard \(r.shard)] \(note)")
            }
        }
        if let lo = starts.min(), let hi = starts.max(), starts.count > 1 {
            notes.append(String(format: "Shards' load starts spread over %.1f ms of wall-clock time " +
                "(corrected by the measured clock offsets where known).", (hi - lo) * 1000))
        }
        return notes
    }

    static func mergedFacts(_ parts: [Part]) -> RunFacts {
        let records = parts.compactMap(\.record)
        guard var facts = records.first?.facts else {
            return RunFacts(scenario: "merged", scenarioFile: "", seed: 0, version: Command.version, startedAt: Date(),
                            durationSeconds: 0, machine: "", workers: 0, devices: 0, target: "", pushDeadlineMicros: 0,
                            shard: "merged \(parts.count)", commandLine: CommandLine.arguments.joined(separator: " "))
        }
        facts.startedAt = records.map(\.facts.startedAt).min() ?? facts.startedAt
        let end = records.map { $0.facts.startedAt.addingTimeInterval($0.facts.durationSeconds) }.max()
        facts.durationSeconds = end.map { $0.timeIntervalSince(facts.startedAt) } ?? facts.durationSeconds
        facts.workers = records.reduce(0) { $0 + $1.facts.workers }
        facts.devices = records[0].devices
        let machines = Array(Set(records.map(\.facts.machine))).sorted()
        facts.machine = machines.count == 1 ? machines[0] : "\(machines.count) machines: " + machines.joined(separator: "; ")
        facts.shard = "merged \(records.count) of \(records[0].shardCount) shards"
        facts.interrupted = records.contains { $0.facts.interrupted }
        facts.commandLine = CommandLine.arguments.joined(separator: " ")
        return facts
    }

    /// `<dir>/<name>` of every part, one header, in the order given.
    static func concatenateRows(_ dirs: [URL], name: String, into out: URL) throws {
        var data = Data()
        var wroteHeader = false
        for dir in dirs {
            guard let part = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) else { continue }
            if !wroteHeader {
                data.append(part)
                wroteHeader = true
            } else if let newline = part.firstIndex(of: 10) {
                data.append(part[part.index(after: newline)...])
            }
            if let last = data.last, last != 10 { data.append(10) }
        }
        if wroteHeader { try data.write(to: out.appendingPathComponent(name), options: .atomic) }
    }
}
