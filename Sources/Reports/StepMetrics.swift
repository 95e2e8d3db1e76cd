import Foundation
import Metrics

/// Percentiles and outcomes per flow step, rebuilt from actions.csv: for every row, its latency goes into
/// `<kind>.fulfillment@<step>` and its latency from the planned start into `<kind>.fulfillment_from_planned@<step>`.
///
/// Values are exact to the microsecond (the CSV's resolution, the same truncation the recorder uses). When the
/// run sampled actions.csv (`sampleEvery` > 1) the counts are of the sampled rows, and the report says so.
public struct StepMetrics: Sendable, Equatable {
    public var histograms: [String: HdrHistogram] = [:]
    /// Outcome counts per `<kind>@<step>`: fulfilled, failed, timed_out.
    public var outcomes: [String: [String: Int64]] = [:]
    /// One row in `sampleEvery` was kept in actions.csv.
    public var sampleEvery: Int = 1
    public var rows: Int = 0

    public init() {}

    /// Reads actions.csv; rows that are incomplete (a run killed mid-write) or malformed are skipped.
    public static func load(actionsCSV url: URL, sampleEvery: Int = 1) -> StepMetrics {
        var metrics = StepMetrics()
        metrics.sampleEvery = max(1, sampleEvery)
        guard let data = FileManager.default.contents(atPath: url.path) else { return metrics }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let headerLine = lines.first else { return metrics }
        if !text.hasSuffix("\n") { lines.removeLast() }
        let header = headerLine.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let kindColumn = column("kind"), let stepColumn = column("step"), let outcomeColumn = column("outcome"),
              let plannedColumn = column("planned_s"), let startedColumn = column("started_s"),
              let finishedColumn = column("finished_s") else { return metrics }
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == header.count,
                  let planned = micros(fields[plannedColumn], decimals: 6),
                  let started = micros(fields[startedColumn], decimals: 6),
                  let finished = micros(fields[finishedColumn], decimals: 6) else { continue }
            let kind = String(fields[kindColumn])
            let step = String(fields[stepColumn])
            guard !kind.isEmpty, !step.isEmpty else { continue }
            metrics.add(kind: kind, step: step, outcome: String(fields[outcomeColumn]),
                        latencyMicros: finished - started, fromPlannedMicros: finished - planned)
        }
        return metrics
    }

    public mutating func add(kind: String, step: String, outcome: String, latencyMicros: Int64,
                             fromPlannedMicros: Int64) {
        rows += 1
        histograms["\(kind).fulfillment@\(step)", default: HdrHistogram()].record(latencyMicros)
        histograms["\(kind).fulfillment_from_planned@\(step)", default: HdrHistogram()].record(fromPlannedMicros)
        outcomes["\(kind)@\(step)", default: [:]][outcome, default: 0] += 1
    }

    /// "12.345678" seconds → 12345678 µs, by integer arithmetic so no value is rounded.
    static func micros(_ field: Substring, decimals: Int) -> Int64? {
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0]) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= decimals, fraction.allSatisfy(\.isNumber) else { return nil }
        fraction += String(repeating: "0", count: decimals - fraction.count)
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        return (whole * scale + (Int64(fraction) ?? 0)) / (scale / 1_000_000)
    }
}
