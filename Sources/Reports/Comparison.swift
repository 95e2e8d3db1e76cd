import Foundation
import Metrics
import TextEscaping
import Thresholds

/// `callstorm compare`: every latency statistic of two runs side by side, with the relative change and a
/// regression verdict. Higher latency is worse; a statistic regresses when the current value exceeds the base by
/// more than its allowed fraction (and by more than `minimumDeltaMicros`, to ignore sub-resolution noise).
public struct Comparison: Sendable {
    public struct Row: Sendable, Equatable {
        public var metric: String
        /// `p50`, `p90`, `p99`, `p99.9` (judged) or `max`, `count`, `ratio` (shown only).
        public var statistic: String
        /// Milliseconds for latency statistics, samples for `count`; nil when the run lacks the metric.
        public var base: Double?
        public var current: Double?
        /// (current − base) / base; nil when either side is missing or the base is 0.
        public var change: Double?
        /// The allowed regression for this row; nil for rows that are shown but not judged.
        public var allowed: Double?
        public var regressed: Bool
    }

    /// Which statistics decide the verdict; `max` and counts are too noisy to gate on and are shown only.
    public static let judgedStatistics = ["p50", "p90", "p99", "p99.9"]

    public var baseName: String
    public var currentName: String
    public var rows: [Row]
    public var regressions: [Row] { rows.filter(\.regressed) }
    public var passed: Bool { regressions.isEmpty }

    /// - Parameters:
    ///   - defaultAllowed: allowed regression as a fraction (0.10 for 10 %).
    ///   - allowed: overrides per `metric.statistic` (`push_to_report.p99`) or per metric (`push_to_report`).
    public init(base: ReportSummary, current: ReportSummary, baseName: String, currentName: String,
                defaultAllowed: Double, allowed: [String: Double] = [:], minimumDeltaMillis: Double = 0) {
        self.baseName = baseName
        self.currentName = currentName
        var rows: [Row] = []
        let names = Set(base.metrics.keys).union(current.metrics.keys).sorted()
        for name in names {
            let b = base.metrics[name]
            let c = current.metrics[name]
            let statistics: [(String, (ReportSummary.MetricSummary) -> Double)] = [
                ("p50", \.p50), ("p90", \.p90), ("p99", \.p99), ("p99.9", \.p999), ("max", \.max),
                ("count", { Double($0.count) }),
            ]
            for (statistic, value) in statistics {
                let baseValue = b.map(value)
                let currentValue = c.map(value)
                var change: Double?
                if let baseValue, let currentValue, baseValue > 0 { change = (currentValue - baseValue) / baseValue }
                let judged = Self.judgedStatistics.contains(statistic)
                let limit = judged ? (allowed["\(name).\(statistic)"] ?? allowed[name] ?? defaultAllowed) : nil
                var regressed = false
                if let limit, let baseValue, let currentValue {
                    let delta = currentValue - baseValue
                    regressed = delta > minimumDeltaMillis
                        && (baseValue == 0 ? currentValue > 0 : delta / baseValue > limit + 1e-12)
                }
                rows.append(Row(metric: name, statistic: statistic, base: baseValue, current: currentValue,
                                change: change, allowed: limit, regressed: regressed))
            }
        }
        // Ratios are shown for context; gate on them with thresholds, whose limits are absolute.
        let ratios: [(String, (RunRatios) -> Double?)] = [
            ("deadline_miss_rate", \.deadlineMissRate), ("errors.rate", \.errorsRate),
            ("delivered_rate_ratio", \.deliveredRateRatio), ("voip_without_call_rate", \.voipWithoutCallRate),
            ("media.one_way_rate", \.mediaOneWayRate),
        ]
        for (name, value) in ratios {
            let baseValue = base.ratios.flatMap(value)
            let currentValue = current.ratios.flatMap(value)
            guard baseValue != nil || currentValue != nil else { continue }
            var change: Double?
            if let baseValue, let currentValue, baseValue > 0 { change = (currentValue - baseValue) / baseValue }
            rows.append(Row(metric: name, statistic: "ratio", base: baseValue, current: currentValue, change: change,
                            allowed: nil, regressed: false))
        }
        self.rows = rows
    }

    // MARK: - Output

    static func cell(_ value: Double?, statistic: String) -> String {
        guard let value else { return "—" }
        switch statistic {
        case "count": return String(Int64(value))
        case "ratio": return Threshold.percentText(value)
        default: return ReportFormat.fixed(value, decimals: 3)
        }
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "—" }
        return (value >= 0 ? "+" : "") + ReportFormat.fixed(value * 100, decimals: 1) + "%"
    }

    /// A plain-text table for the terminal: regressions first, then every judged row.
    public func text() -> String {
        var lines = ["compare \(baseName) → \(currentName): "
            + (passed ? "no regression" : "\(regressions.count) regression(s)")]
        let shown = rows.filter { $0.allowed != nil }
        let width = max(shown.map { $0.metric.count + $0.statistic.count + 1 }.max() ?? 10, 10)
        func pad(_ text: String, _ n: Int) -> String { text + String(repeating: " ", count: max(0, n - text.count)) }
        lines.append(pad("metric", width) + "  " + pad("base ms", 12) + pad("current ms", 12) + pad("change", 10)
            + "verdict")
        for row in shown.sorted(by: { ($0.regressed ? 0 : 1, $0.metric) < ($1.regressed ? 0 : 1, $1.metric) }) {
            lines.append(pad("\(row.metric).\(row.statistic)", width) + "  "
                + pad(Self.cell(row.base, statistic: row.statistic), 12)
                + pad(Self.cell(row.current, statistic: row.statistic), 12) + pad(Self.percent(row.change), 10)
                + (row.regressed ? "REGRESSION (allowed +\(ReportFormat.fixed((row.allowed ?? 0) * 100, decimals: 1))%)"
                    : "ok"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// compare.html: self-contained like report.html.
    public func html() -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<title>callstorm compare</title>\n<style>\n\(HTMLReport.css)"
        html += "tr.regressed td, tr.regressed th { background: #fce8e6; color: #b31412; font-weight: 600; }\n"
        html += "</style>\n</head>\n<body>\n<main>\n"
        html += "<header class=\"verdict \(passed ? "pass" : "fail")\" id=\"verdict\">\n"
        html += "<h1><span class=\"badge\">\(passed ? "PASS" : "REGRESSION")</span> compare</h1>\n"
        html += "<p>base <code>\(baseName.markupEscaped)</code> → current <code>\(currentName.markupEscaped)</code>: "
        html += passed ? "no regression.</p>\n" : "\(regressions.count) statistic(s) regressed.</p>\n"
        html += "</header>\n<section>\n<h2>Every metric</h2>\n<table class=\"numbers\">\n"
        html += "<thead><tr><th>metric</th><th>statistic</th><th>base</th><th>current</th><th>change</th>"
        html += "<th>allowed</th><th>verdict</th></tr></thead>\n<tbody>\n"
        for row in rows {
            let verdict = row.allowed == nil ? "shown only" : (row.regressed ? "REGRESSION" : "ok")
            html += "<tr\(row.regressed ? " class=\"regressed\"" : "")>"
            html += "<th scope=\"row\">\(row.metric.markupEscaped)</th>"
            html += "<td>\(row.statistic)</td><td>\(Self.cell(row.base, statistic: row.statistic))</td>"
            html += "<td>\(Self.cell(row.current, statistic: row.statistic))</td><td>\(Self.percent(row.change))</td>"
            html += "<td>\(row.allowed.map { "+" + ReportFormat.fixed($0 * 100, decimals: 1) + "%" } ?? "")</td>"
            html += "<td>\(verdict)</td></tr>\n"
        }
        html += "</tbody>\n</table>\n<p class=\"empty\">Latencies in milliseconds. A judged statistic regresses when "
        html += "current exceeds base by more than the allowed fraction.</p>\n</section>\n</main>\n</body>\n</html>\n"
        return html
    }
}
