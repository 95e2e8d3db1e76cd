import CallModel
import Checker
import HistoryLoading
import Foundation
import Reports
import Results
import Scenario

/// Runs the history checker on a run directory's `history.jsonl` and writes `checker.json`, for the first
/// violations `violation-<n>.svg` timelines, for each violation (up to `ReproFile.maximum`) `repro-<n>.yaml`,
/// and raw/races.json for the report's Races section.
enum HistoryCheck {
    struct Outcome {
        var report: CheckReport
        var races: RaceSummary
        var lines: [String]
        /// Violation number (1-based) → repro file written.
        var repros: [Int: URL] = [:]
    }

    static func racesURL(_ run: URL) -> URL { RunBundle(run).races }

    static let timelines = 10

    static func run(_ runDirectory: URL, writeFiles: Bool = true) throws -> Outcome? {
        let bundle = RunBundle(runDirectory)
        let url = bundle.history
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        // First without the `sip` lines' texts, which no rule reads; with them again only for what does read
        // them, fault attribution and the violations' timelines, when there are any. The lines keep their places,
        // so the report is the same from either reading.
        var events = try HistoryReader.read(contentsOf: url, sipMessages: false)
        var report = HistoryChecker.check(events, policy: declaredPolicy(runDirectory))
        let faults = injectedFaults(run: runDirectory)
        if !faults.isEmpty || !report.violations.isEmpty, events.contains(where: \.isSIP) {
            events = try HistoryReader.read(contentsOf: url)
        }
        if !faults.isEmpty {
            // Findings an injected fault could have caused are reported apart, never against the server.
            let (server, attributed) = FaultAttribution.split(report.violations, events: events, faults: faults)
            report.violations = server
            report.attributed = attributed
        }
        let races = RaceSummary(events: events, report: report)
        var lines = ["history checker: \(report.operations) operations, \(report.indeterminate) indeterminate, " +
                     "\(races.races) races, \(report.violations.count) violations"]
        if let attributed = report.attributed, !attributed.isEmpty {
            lines[0] += " (and \(attributed.count) findings on paths injected faults touched, not counted)"
            for group in FaultAttribution.byKind(attributed) {
                lines.append("  after \(group.kind): \(group.findings) findings, \(group.devices) devices")
            }
        }
        for pair in races.byPair {
            // Which legal order won how often (a race counts once, by the outcomes of all its actions).
            let outcomes = (pair.outcomes ?? [:]).sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            for (outcome, n) in outcomes { lines.append("  race \(pair.name): \(outcome): \(n)") }
        }
        for (rule, count) in report.countsByRule where count > 0 {
            lines.append("  \(rule.rawValue): \(count)")
        }
        for (rule, why) in (report.rulesSkipped ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("  not checked: \(rule): \(why)")
        }
        for v in report.violations.prefix(5) {
            lines.append("  \(v.rule.rawValue): \(v.message) (conversations \(v.conversations.joined(separator: ", "))" +
                         "; ops \(v.ops.map(String.init).joined(separator: ", ")))")
        }
        var outcome = Outcome(report: report, races: races, lines: lines)
        guard writeFiles else { return outcome }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try RunResults.replaceFile(bundle.checker, with: encoder.encode(report))
        var figures: [RacesSection.TimelineFigure] = []
        for (n, v) in report.violations.prefix(timelines).enumerated() {
            let svg = Timeline.svg(for: v, in: events)
            try RunResults.replaceFile(bundle.violationTimeline(n + 1), with: Data(svg.utf8))
            figures.append(.init(number: n + 1, rule: v.rule.rawValue, message: v.message,
                                 offsetNanos: races.origins[n].offset, svg: svg))
        }
        outcome.repros = try writeRepros(runDirectory, report: report, races: races)
        if !outcome.repros.isEmpty {
            outcome.lines.append("  \(outcome.repros.count) repro files (repro-<n>.yaml); likeliest to replay:")
            for (rule, count) in report.countsByRule where count > 0 {
                guard let i = races.likeliestToReplay(rule, in: report), let file = outcome.repros[i + 1] else {
                    continue
                }
                outcome.lines.append("    \(rule.rawValue): callstorm replay \(file.path) --repeat 10")
            }
        }
        var section = RacesSection(
            operations: report.operations, indeterminate: report.indeterminate,
            rules: report.countsByRule.map { .init(rule: $0.rule.rawValue, violations: $0.count) },
            races: races.races,
            offsets: races.byOffset, pairs: races.byPair,
            timelines: figures, repros: outcome.repros.keys.sorted())
        section.skipped = report.rulesSkipped
        try RunReporting.save(section, to: racesURL(runDirectory))
        return outcome
    }

    /// The server policy the run's scenario copy declares (the reference target's when it ran embedded);
    /// undeclared when the copy cannot be read.
    static func declaredPolicy(_ run: URL) -> ServerPolicy {
        guard let text = try? String(contentsOf: RunReporting.scenarioURL(run), encoding: .utf8),
              case .success(let scenario) = ScenarioLoader.parse(text, file: RunReporting.scenarioURL(run).path)
        else { return .undeclared }
        let target = RunReporting.load(RunFacts.self, from: RunReporting.factsURL(run))?.target
        // A SIP run names its SIP server as the target; SIP flows cannot merge, so the reference's policy stands.
        let embedded = scenario.sip != nil
            || (target.map { $0.hasPrefix("embedded") } ?? (scenario.target == .embedded))
        return scenario.serverPolicy(embedded: embedded)
    }

    /// One repro file per violation whose planned call the history names, from the run's scenario copy.
    private static func writeRepros(_ run: URL, report: CheckReport, races: RaceSummary) throws -> [Int: URL] {
        let fm = FileManager.default
        for old in (try? fm.contentsOfDirectory(atPath: run.path)) ?? []
        where RunBundle.isRepro(old) {
            try? fm.removeItem(at: run.appendingPathComponent(old))
        }
        guard !report.violations.isEmpty,
              let text = try? String(contentsOf: RunReporting.scenarioURL(run), encoding: .utf8),
              case .success(let scenario) = ScenarioLoader.parse(text, file: RunReporting.scenarioURL(run).path)
        else { return [:] }
        let seed = RunReporting.load(RunFacts.self, from: RunReporting.factsURL(run))?.seed ?? scenario.seed
        var written: [Int: URL] = [:]
        for (n, v) in report.violations.enumerated() where written.count < ReproFile.maximum {
            guard var repro = ReproFile.text(scenarioText: text, scenario: scenario, seed: seed, violation: v,
                                             number: n + 1, origin: races.origins[n], runDirectory: run)
            else { continue }
            let file = RunBundle(run).repro(n + 1)
            if case .failure(let errors) = ScenarioLoader.parse(repro, file: file.path) {
                // E.g. a fault window beyond the repro's one-second load: say so in the file rather than lose it.
                repro = "# warning: this repro does not load as written; edit it first:\n"
                    + errors.description.split(separator: "\n").map { "#   \($0)\n" }.joined() + repro
            }
            try RunResults.replaceFile(file, with: Data(repro.utf8))
            written[n + 1] = file
        }
        return written
    }
}

extension HistoryEvent {
    /// A `sip` line: a history without one reads the same with or without `sip` lines' texts.
    fileprivate var isSIP: Bool {
        if case .sip = body { return true }
        return false
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
                throw CLIError.usage("\(run.path) has no \(RunBundle.historyFileName)")
            }
            outcome.lines.forEach { print($0) }
            return outcome.report.violations.isEmpty ? .passed : .thresholdsFailed
        } catch let error as CLIError {
            throw error
        } catch {
            throw .cannotRead(what: "the history to check", path: run.path, cause: error)
        }
    }
}
