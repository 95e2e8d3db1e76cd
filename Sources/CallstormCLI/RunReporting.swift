import Foundation
import Metrics
import Reports
import Results
import Scenario
import ScenarioLoading
import Thresholds

/// What `run` saves beside the raw results so `report` can rebuild every file later, and the one path both
/// commands take to write the reports: join rows, evaluate thresholds, write.
enum RunReporting {
    // Where each file lives is `RunBundle`'s; these name the ones this enum saves and loads.
    static func factsURL(_ run: URL) -> URL { RunBundle(run).facts }
    static func notesURL(_ run: URL) -> URL { RunBundle(run).notes }
    static func faultWindowsURL(_ run: URL) -> URL { RunBundle(run).faultWindows }
    static func finishedURL(_ run: URL) -> URL { RunBundle(run).finished }
    static func scenarioURL(_ run: URL) -> URL { RunBundle(run).scenario }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func save<T: Encodable>(_ value: T, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try RunResults.replaceFile(url, with: encoder().encode(value))
    }

    static func load<T: Decodable>(_ type: T.Type, from url: URL) -> T? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(type, from: data)
    }

    /// Thresholds of the scenario copy in the run directory; a problem becomes a note instead of an error, so a
    /// report is never lost because the scenario file was edited afterwards.
    static func thresholds(run: URL, notes: inout [String]) -> [Threshold] {
        let path = scenarioURL(run).path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        switch ScenarioLoader.load(contentsOf: path, knownFlows: ValidateCommand.knownFlows) {
        case .success(let scenario): return scenario.slo
        case .failure(let errors):
            notes.append("Thresholds not evaluated: the run's scenario.yaml no longer loads (\(errors.description)).")
            return []
        }
    }

    /// Above this scheduler-lag p99 the verdict says the harness, not the target, may be slow (DESIGN.md §6).
    static let harnessLagWarningMicros: Int64 = 50_000

    struct Written {
        var files: ReportFiles
        var verdict: Verdict
        var thresholds: [ThresholdResult]
        var books: Books
        var capacity: CapacityResult?
        var harness: HarnessSaturation?
        /// The run did not finish its plan (a signal, a kill, a crash): its results are partial.
        var interrupted = false
        /// A Kamailio callstorm started ran out of memory (`callstorm report` reads its log again): exit 3.
        var kamailioExhausted = false
    }

    /// Writes every report file of `run` from the given measurements. `historyJoined`: the caller has just joined
    /// `history.jsonl` (to check it), so it is not joined a second time.
    static func write(run: URL, facts: RunFacts, recorder: Recorder, thresholds: [Threshold], notes: [String],
                      extraFailures: [String] = [], historyJoined: Bool = false) throws -> Written {
        try RunResults.joinRows(run: run, .actions)
        try RunResults.joinRows(run: run, .pushes)
        if !historyJoined { try RunResults.joinHistory(run: run) }
        var result = RunResult(facts: facts, recorder: recorder, verdict: Verdict(passed: true), notes: notes)
        result.faultWindows = load([Reports.FaultSpan].self, from: faultWindowsURL(run)) ?? []
        let scenario = scenarioCopy(run: run)
        result.harness = HarnessSaturationAnalysis.analyze(recorder, limit: scenario?.harness ?? HarnessLimit())
        result.capacity = scenario?.capacity.map { CapacityAnalysis.analyze(recorder, spec: $0, harness: result.harness) }
        result.races = load(RacesSection.self, from: HistoryCheck.racesURL(run))
        if let text = try? String(contentsOf: run.appendingPathComponent("trace.jsonl"), encoding: .utf8) {
            result.trace = text.split(separator: "\n").map(String.init)
        }
        let histograms = result.histograms
        let counters = recorder.counters
        result.thresholds = thresholds.map { $0.evaluate(histograms: histograms, counters: counters) }
        var warnings: [String] = []
        // First: when callstorm could not keep up, every other figure after that second is about callstorm.
        if let harness = result.harness { warnings.append(harness.summary) }
        if let ratio = result.ratios.deliveredRateRatio, ratio < 0.99 {
            warnings.append("the harness delivered only \(Threshold.percentText(ratio)) of the planned arrivals "
                + "(calls.started / planned); latencies describe a lighter load than planned")
        }
        var harnessLagged = result.harness != nil
        if result.harness == nil, let lag = histograms[MetricName.schedulerLag],
           lag.value(atPercentile: 99) > harnessLagWarningMicros {
            harnessLagged = true
            warnings.append("the harness itself lagged: scheduler_lag p99 "
                + "\(Threshold.millisText(Double(lag.value(atPercentile: 99)))) (planned → actual); latencies may include harness "
                + "delay — use fewer devices or more workers")
        }
        warnings += DeviceFindings.lines(counters: counters, harnessLagged: harnessLagged)
        var failures = extraFailures
        if facts.interrupted { failures.append("interrupted before the plan finished; the results are partial") }
        let books = result.books
        for problem in books.problems { failures.append("accounting does not balance: \(problem)") }
        if let tls = Verdict.sipTransportFailures(counters: counters) { failures.append(tls) }
        let nothingDone = Verdict.nothingDone(counters: counters, devices: facts.devices, isShard: facts.shard != nil)
        if nothingDone == nil, let refused = Verdict.refusals(counters: counters) { failures.append(refused) }
        result.verdict = Verdict(thresholds: result.thresholds, warnings: warnings, extraFailures: failures,
                                 nothingDone: nothingDone)
        let files = try ReportWriter.write(result, to: run)
        return Written(files: files, verdict: result.verdict, thresholds: result.thresholds, books: books,
                       capacity: result.capacity, harness: result.harness, interrupted: facts.interrupted)
    }
}
