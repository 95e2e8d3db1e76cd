import Foundation
import Reports
import Results

/// `callstorm compare BASE CURRENT`: reads two summary.json files (or run directories holding them), prints
/// the comparison, writes compare.html, and exits 1 when any judged statistic regressed.
enum CompareCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: ["max-regression", "min-delta", "out"], boolean: ["help", "quiet"])
        if parsed.has("help") {
            print(Help.compare)
            return .passed
        }
        guard parsed.positional.count == 2 else { throw .usage("compare takes BASE and CURRENT") }
        let (defaultAllowed, allowed) = try regressionLimits(parsed.value("max-regression") ?? "10%")
        var minimumDelta = 0.0
        if let text = parsed.value("min-delta") {
            guard let micros = Self.durationMillis(text) else {
                throw .badValue(flag: "min-delta", value: text, expected: "a duration like 1ms")
            }
            minimumDelta = micros
        }
        let base = try load(parsed.positional[0])
        let current = try load(parsed.positional[1])
        let comparison = Comparison(base: base.summary, current: current.summary, baseName: parsed.positional[0],
                                    currentName: parsed.positional[1], defaultAllowed: defaultAllowed,
                                    allowed: allowed, minimumDeltaMillis: minimumDelta)
        let out = parsed.value("out").map { URL(fileURLWithPath: $0) }
            ?? RunBundle(current.directory).comparison
        do {
            try Data(comparison.html().utf8).write(to: out, options: .atomic)
        } catch {
            throw .cannotWrite(what: out.lastPathComponent, directory: out.deletingLastPathComponent().path, cause: error)
        }
        if !parsed.has("quiet") { print(comparison.text(), terminator: "") }
        print("compare: \(out.path)")
        return comparison.passed ? .passed : .thresholdsFailed
    }

    /// `10%` or `10%,push_to_report.p99=5%,dial_to_ring=20%`: a global limit and per-metric overrides.
    static func regressionLimits(_ text: String) throws(CLIError) -> (Double, [String: Double]) {
        var global = 0.10
        var perMetric: [String: Double] = [:]
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard let value = fraction(pieces.last!) else {
                throw .badValue(flag: "max-regression", value: part,
                                expected: "percentages like 10% or push_to_report.p99=5%")
            }
            if pieces.count == 2 { perMetric[pieces[0]] = value } else { global = value }
        }
        return (global, perMetric)
    }

    static func fraction(_ text: String) -> Double? {
        if text.hasSuffix("%") { return Double(text.dropLast()).map { $0 / 100 } }
        return Double(text)
    }

    static func durationMillis(_ text: String) -> Double? {
        for (unit, scale) in [("ms", 1.0), ("us", 0.001), ("s", 1_000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    /// A run directory (its summary.json) or a summary.json file.
    static func load(_ path: String) throws(CLIError) -> (summary: ReportSummary, directory: URL) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .usage("'\(path)' does not exist (expected a run directory or a summary.json)")
        }
        let url = URL(fileURLWithPath: path)
        let file = isDirectory.boolValue ? url.appendingPathComponent(ReportWriter.summaryJSONFileName) : url
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw .usage("cannot read \(file.path); rebuild it with 'callstorm report RUN_DIR'")
        }
        do {
            return (try ReportSummary.decode(from: data), file.deletingLastPathComponent())
        } catch {
            throw .usage("\(file.path) is not a callstorm summary.json: \(error)")
        }
    }
}

extension Help {
    static let compare = """
        Usage: callstorm compare BASE CURRENT [flags]

        BASE and CURRENT are run directories or summary.json files. Prints p50/p90/p99/p99.9 of every latency
        metric with the change, writes compare.html (into CURRENT's directory unless --out), and exits 1 when a
        statistic regressed beyond its limit, 0 otherwise.
          --max-regression L   allowed increase: a global 10% and/or per metric or statistic,
                               e.g. "10%,push_to_report.p99=5%,dial_to_ring=20%" (default 10%)
          --min-delta D        ignore increases smaller than this (e.g. 1ms; default 0)
          --out FILE           where to write compare.html
          --quiet              print only the path of compare.html
        """

    static let report = """
        Usage: callstorm report RUN_DIR

        Rebuilds every report file of a run (report.html, summary.csv/json, timeseries.csv, counters.csv,
        actions.csv, pushes.csv, junit.xml, hlog/) from its raw/ results — also after the process was killed,
        in which case the report covers everything up to the last checkpoint. Exits 1 when a threshold fails.
        """
}
