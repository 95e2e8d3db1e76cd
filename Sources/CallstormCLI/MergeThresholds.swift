import Foundation
import Metrics
import Scenario

// TODO(issue-6): replace this file with the `slo:` thresholds of branch issue-6 (Metrics.Threshold and its
// evaluation on a Recorder). Merge only needs "a function of the merged Recorder", which that is too: swap
// `MergeThresholds.parse` for the scenario's `slo` list and `evaluate` for issue-6's evaluator.

/// A minimal threshold evaluator for `callstorm merge --threshold`, kept until the scenario `slo:` section
/// lands. A threshold is `KEY OP LIMIT`: KEY is `<metric>.<p50|p90|p95|p99|p99.9|min|max|mean|count>` of a
/// histogram (LIMIT a duration such as `800ms`, or a number for `count`) or a counter's name (a counter never
/// incremented is 0); OP is one of `< <= > >= == !=`.
enum MergeThresholds {
    struct Threshold: Equatable {
        var key: String
        var op: String
        /// Microseconds for latency statistics, a plain number otherwise.
        var limit: Double
        var limitText: String
        var text: String { "\(key) \(op) \(limitText)" }
    }

    struct Outcome: Equatable {
        var threshold: Threshold
        var measured: Double
        var passed: Bool
        var summary: String {
            let m = measured.rounded() == measured ? String(Int64(measured)) : String(measured)
            return "\(passed ? "passed" : "FAILED"): \(threshold.text) (measured \(m))"
        }
    }

    static let operators = ["<=", ">=", "==", "!=", "<", ">"]
    static let statistics = ["p50", "p90", "p95", "p99", "p99.9", "min", "max", "mean", "count"]

    /// Parses `a < 1; b == 0` (semicolon separated); every problem at once.
    static func parse(_ text: String) -> (thresholds: [Threshold], errors: [String]) {
        var thresholds: [Threshold] = []
        var errors: [String] = []
        for part in text.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.isEmpty { continue }
            guard let op = operators.first(where: { item.contains($0) }), let range = item.range(of: op) else {
                errors.append("'\(item)' has no comparison (one of \(operators.joined(separator: " ")))")
                continue
            }
            let key = item[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            let limitText = item[range.upperBound...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else {
                errors.append("'\(item)' has no key")
                continue
            }
            let isLatency = statistic(of: key).map { $0.stat != "count" } ?? false
            if let number = Double(limitText) {
                thresholds.append(Threshold(key: key, op: op, limit: number, limitText: limitText))
            } else if isLatency, let nanos = try? Quantity.duration(limitText) {
                thresholds.append(Threshold(key: key, op: op, limit: Double(nanos) / 1000, limitText: limitText))
            } else {
                errors.append("'\(item)': limit '\(limitText)' is not a number" + (isLatency ? " or a duration" : ""))
            }
        }
        return (thresholds, errors)
    }

    private static func statistic(of key: String) -> (metric: String, stat: String)? {
        for stat in statistics where key.hasSuffix("." + stat) {
            return (String(key.dropLast(stat.count + 1)), stat)
        }
        return nil
    }

    /// Evaluates on one recorder — for merge, the union of all shards, never a shard alone.
    static func evaluate(_ thresholds: [Threshold], on recorder: Recorder) -> [Outcome] {
        let histograms = recorder.histograms
        let counters = recorder.counters
        return thresholds.map { t in
            let measured: Double
            if let (metric, stat) = statistic(of: t.key), let h = histograms[metric] {
                switch stat {
                case "count": measured = Double(h.totalCount)
                case "min": measured = Double(h.min)
                case "max": measured = Double(h.max)
                case "mean": measured = h.mean
                default: measured = Double(h.value(atPercentile: Double(stat.dropFirst())!))
                }
            } else if let (metric, stat) = statistic(of: t.key), stat == "count", counters[t.key] == nil,
                      !metric.isEmpty {
                measured = 0  // a histogram that never got a sample
            } else {
                measured = Double(counters[t.key] ?? 0)
            }
            return Outcome(threshold: t, measured: measured, passed: holds(measured, t.op, t.limit))
        }
    }

    static func holds(_ measured: Double, _ op: String, _ limit: Double) -> Bool {
        switch op {
        case "<": return measured < limit
        case "<=": return measured <= limit
        case ">": return measured > limit
        case ">=": return measured >= limit
        case "==": return measured == limit
        default: return measured != limit
        }
    }
}
