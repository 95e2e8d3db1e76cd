import Foundation
import Metrics

/// The figures of a redial storm (`behavior.redial_after_drop`), read from the merged recorder's per-second
/// series and the run's target-kill window: redials per second, the fulfilment of every start during the storm,
/// and how long the error rate took to come back to its baseline once the kill window ended (docs/REPORTS.md).
///
/// The error rate of a second is the share of the calls that ended in it (completed, failed or missed) that
/// failed. The baseline is that rate over every second wholly before the kill began. The storm runs from the
/// kill's start to the end of the first second, wholly after the kill ended, whose rate is at or below the
/// baseline (the recovered second); seconds in which no call ended are skipped.
public struct StormFigures: Sendable, Codable, Equatable {
    /// Redial calls started after drops, in all, and per second since the run started (seconds without one: 0).
    public var redials: Int64
    public var redialsPerSecond: [Int64]
    /// Drops whose caller did not redial (outside `share`).
    public var skipped: Int64
    /// The kill window (seconds since the run started); nil when the run killed no target.
    public var killFromSecond: Double?
    public var killToSecond: Double?
    /// Failed / ended calls before the kill; nil when no call ended before it.
    public var baselineErrorRate: Double?
    /// The error rate of each second since the run started (nil: no call ended in it).
    public var errorRatePerSecond: [Double?]
    /// Seconds from the kill window's end to the end of the recovered second; nil when it never recovered (or
    /// there is no baseline).
    public var recoverySeconds: Double?
    /// Every start's fulfilment during the storm (the starts of the seconds from the kill's start to the
    /// recovered second, or to the end of the run): count and milliseconds.
    public var startFulfillment: ReportSummary.MetricSummary?

    /// Nil when the run scheduled no redial after a drop.
    public init?(_ result: RunResult) {
        let recorder = result.recorder
        let counters = recorder.counters
        guard let planned = counters[MetricName.redialsAfterDropPlanned], planned > 0 else { return nil }
        redials = counters[MetricName.redialsAfterDrop] ?? 0
        skipped = counters[MetricName.redialsAfterDropSkipped] ?? 0
        let kill = result.faultWindows.first { ($0.what ?? $0.label).contains("kill") }
        killFromSecond = kill?.fromSecond
        killToSecond = kill?.toSecond
        let ended = [MetricName.callsCompleted, MetricName.callsFailed, MetricName.callsMissed].map {
            Self.dense(recorder.counterSeries($0))
        }
        let failed = ended[1]
        let redialSeries = Self.dense(recorder.counterSeries(MetricName.redialsAfterDrop))
        let seconds = max(ended.map(\.count).max() ?? 0, redialSeries.count)
        redialsPerSecond = Self.padded(redialSeries, to: seconds)
        let total = (0..<seconds).map { s in ended.reduce(Int64(0)) { $0 + ($1.indices.contains(s) ? $1[s] : 0) } }
        let failures = Self.padded(failed, to: seconds)
        errorRatePerSecond = (0..<seconds).map { total[$0] > 0 ? Double(failures[$0]) / Double(total[$0]) : nil }
        var stormEnd = seconds
        if let kill {
            let before = 0..<min(seconds, Int(kill.fromSecond.rounded(.down)))
            let endedBefore = before.reduce(Int64(0)) { $0 + total[$1] }
            baselineErrorRate = endedBefore > 0
                ? Double(before.reduce(Int64(0)) { $0 + failures[$1] }) / Double(endedBefore) : nil
            let firstAfter = Int(kill.toSecond.rounded(.up))
            let rates = errorRatePerSecond
            if let baseline = baselineErrorRate, firstAfter < seconds,
               let back = (firstAfter..<seconds).first(where: { rates[$0].map { $0 <= baseline } ?? false }) {
                recoverySeconds = Double(back + 1) - kill.toSecond
                stormEnd = back + 1
            }
        }
        let stormStart = kill.map { Int($0.fromSecond.rounded(.down)) } ?? 0
        let intervals = recorder.intervals[MetricName.fulfillment("start")] ?? [:]
        let storm = intervals.filter { $0.key >= stormStart && $0.key < stormEnd }.values
        if let first = storm.first {
            startFulfillment = ReportSummary.MetricSummary(HdrHistogram(storm.dropFirst().reduce(first) { $0.adding($1) }))
        }
    }

    /// summary.csv's rows: `storm.start.fulfillment` as a latency row (ms); the scalars fill `count` (the seconds
    /// or calls they are read from) and `mean` only: `storm.redials` (calls), `storm.redials_per_second.peak`,
    /// `storm.baseline_error_rate` and `storm.recovery` (s; absent when it never recovered).
    func csvRows() -> [[String]] {
        func scalar(_ name: String, count: Int, _ value: String, _ unit: String) -> [String] {
            [name, String(count), "", "", "", "", "", "", value, unit]
        }
        var rows: [[String]] = []
        if let f = startFulfillment {
            let figures = [f.min, f.p50, f.p90, f.p99, f.p999, f.max, f.mean].map { String(format: "%.3f", $0) }
            rows.append(["storm.start.fulfillment", String(f.count)] + figures + ["ms"])
        }
        rows.append(scalar("storm.redials", count: redialsPerSecond.count, String(redials), "calls"))
        rows.append(scalar("storm.redials_per_second.peak", count: redialsPerSecond.count,
                           String(redialsPerSecond.max() ?? 0), "redials/s"))
        if let baseline = baselineErrorRate {
            rows.append(scalar("storm.baseline_error_rate", count: Int(killFromSecond ?? 0),
                               String(format: "%.4f", baseline), "fraction"))
        }
        if let recovery = recoverySeconds {
            rows.append(scalar("storm.recovery", count: 1, String(format: "%.3f", recovery), "s"))
        }
        return rows
    }

    /// A per-second series as a dense array from second 0.
    static func dense(_ series: [(second: Int, value: Int64)]) -> [Int64] {
        guard let last = series.last?.second, last >= 0 else { return [] }
        var values = [Int64](repeating: 0, count: last + 1)
        for point in series where point.second >= 0 { values[point.second] += point.value }
        return values
    }

    static func padded(_ values: [Int64], to count: Int) -> [Int64] {
        values + [Int64](repeating: 0, count: max(0, count - values.count))
    }
}
