/// One SLO of a scenario's `slo:` section, such as `push_to_report.p99: "< 1s"`: what is measured, how it is
/// compared, and the limit. Plain data, so the scenario loader builds it, Metrics evaluates it
/// (`Threshold.evaluate`), and a run directory's scenario.yaml rebuilds it after the process is gone.
///
/// Keys take three shapes:
/// - `<metric>[@<flow>/<step>].<statistic>`: a latency statistic (`p50`, `p95`, `p99`, `p99.9`, `min`, `max`,
///   `mean`, `count`) of a histogram; the limit is a duration (`800ms`), or a number for `count`.
/// - `deadline_miss_rate`, `errors.rate`, `delivered_rate_ratio`, `voip_without_call_rate`, `media.one_way_rate`:
///   derived ratios; the limit is `0.5%` or `0.005`.
/// - `media.mos.<statistic>` (`media.mos.p5: "> 3.5"`): a statistic of the streams' MOS, recorded × 1000 as
///   `media.mos_x1000`; the limit is a plain MOS number (`Threshold.scaledFigures`).
/// - any other name: a counter's total (`calls.failed: "== 0"`); a counter never incremented is 0.
public struct Threshold: Sendable, Equatable {
    public enum Comparison: String, Sendable, Codable, CaseIterable {
        case lessThan = "<", lessOrEqual = "<=", greaterThan = ">", greaterOrEqual = ">=", equal = "==",
             notEqual = "!="

        public func holds(_ measured: Double, _ limit: Double) -> Bool {
            switch self {
            case .lessThan: return measured < limit
            case .lessOrEqual: return measured <= limit
            case .greaterThan: return measured > limit
            case .greaterOrEqual: return measured >= limit
            case .equal: return measured == limit
            case .notEqual: return measured != limit
            }
        }
    }

    public enum Statistic: Sendable, Equatable {
        case percentile(Double)
        case min, max, mean, count

        /// The suffix as written in a key: `p99`, `p99.9`, `max`.
        public var label: String {
            switch self {
            case .percentile(let p): return "p" + Threshold.shortNumber(p)
            case .min: return "min"
            case .max: return "max"
            case .mean: return "mean"
            case .count: return "count"
            }
        }
    }

    /// The derived ratios a threshold can name; see `RunRatios` for their definitions.
    public enum Ratio: String, Sendable, Codable, CaseIterable {
        case deadlineMissRate = "deadline_miss_rate"
        case errorsRate = "errors.rate"
        case deliveredRateRatio = "delivered_rate_ratio"
        case voipWithoutCallRate = "voip_without_call_rate"
        case mediaOneWayRate = "media.one_way_rate"
    }

    public enum Subject: Sendable, Equatable {
        /// `metric` may carry a flow step as `join.fulfillment@incoming-1to1/answer`.
        case latency(metric: String, statistic: Statistic)
        case ratio(Ratio)
        case counter(String)
    }

    /// The key as written in the scenario.
    public var key: String
    public var subject: Subject
    public var comparison: Comparison
    /// Microseconds for latency limits, a fraction (0.005) for ratios, a plain number for counts and counters.
    public var limit: Double
    /// The limit as written (`1s`, `0.5%`), for messages.
    public var limitText: String
    /// Evaluate during the run too, and stop the run at the first failure.
    public var abortOnFail: Bool
    /// `file:line:column` of the key, so a failure message points at the line to change.
    public var source: String

    public init(key: String, subject: Subject, comparison: Comparison, limit: Double, limitText: String,
                abortOnFail: Bool = false, source: String = "") {
        self.key = key
        self.subject = subject
        self.comparison = comparison
        self.limit = limit
        self.limitText = limitText
        self.abortOnFail = abortOnFail
        self.source = source
    }

    /// `push_to_report.p99 < 1s`.
    public var text: String { "\(key) \(comparison.rawValue) \(limitText)" }

    // MARK: - Parsing

    /// Why a key or an expression is not a threshold; the message says what was expected.
    public struct ParseError: Error, Equatable, Sendable {
        public var message: String
    }

    /// Parses `key: "<op> <limit>"`. Durations need a unit; ratios accept `0.5%` or `0.005`.
    public static func parse(key: String, expression: String, abortOnFail: Bool = false,
                             source: String = "") throws(ParseError) -> Threshold {
        let subject = try parseSubject(key)
        let (comparison, rest) = try parseComparison(expression, key: key)
        let limit: Double
        switch subject {
        case .latency(let metric, let statistic) where statistic != .count && ScaledFigure.all[metric] != nil:
            guard let value = Double(rest), value.isFinite else {
                throw ParseError(message: "expected a number such as 3.5 after '\(comparison.rawValue)' for "
                    + "'\(key)', got '\(rest)'")
            }
            limit = value * ScaledFigure.all[metric]!.scale
        case .latency(_, .count), .counter:
            guard let value = Double(rest), value.isFinite else {
                throw ParseError(message: "expected a number after '\(comparison.rawValue)' for '\(key)', got '\(rest)'")
            }
            limit = value
        case .latency:
            guard let micros = durationMicros(rest) else {
                throw ParseError(message: "expected a duration like 800ms or 1s after '\(comparison.rawValue)' "
                    + "for '\(key)', got '\(rest)'")
            }
            limit = micros
        case .ratio:
            guard let fraction = fraction(rest) else {
                throw ParseError(message: "expected a percentage like 0.5% or a fraction like 0.005 after "
                    + "'\(comparison.rawValue)' for '\(key)', got '\(rest)'")
            }
            limit = fraction
        }
        return Threshold(key: key, subject: subject, comparison: comparison, limit: limit, limitText: rest,
                         abortOnFail: abortOnFail, source: source)
    }

    static let statisticWords: [String: Statistic] = ["min": .min, "max": .max, "mean": .mean, "count": .count]

    static func parseSubject(_ key: String) throws(ParseError) -> Subject {
        guard !key.isEmpty, !key.contains(" ") else {
            throw ParseError(message: "a threshold key must be a metric name without spaces, got '\(key)'")
        }
        if let ratio = Ratio(rawValue: key) { return .ratio(ratio) }
        // The statistic is the last component; a percentile may itself hold a dot (`p99.9`).
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for width in [2, 1] where parts.count > width {
            let suffix = parts.suffix(width).joined(separator: ".")
            guard suffix.hasPrefix("p") else { continue }
            let digits = suffix.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy({ $0.isNumber || $0 == "." }),
                  digits.first!.isNumber else { continue }
            guard let p = Double(digits), p > 0, p < 100 else {
                throw ParseError(message: "percentile in '\(key)' must be between 0 and 100 (exclusive), "
                    + "like p50, p99 or p99.9")
            }
            return .latency(metric: parts.dropLast(width).joined(separator: "."), statistic: .percentile(p))
        }
        if let dot = key.lastIndex(of: "."), dot > key.startIndex,
           let statistic = statisticWords[String(key[key.index(after: dot)...])] {
            return .latency(metric: String(key[..<dot]), statistic: statistic)
        }
        if key.contains("@") {
            throw ParseError(message: "'\(key)' names a flow step but no statistic; add one such as .p95 or .max")
        }
        return .counter(key)
    }

    static func parseComparison(_ expression: String, key: String) throws(ParseError) -> (Comparison, String) {
        let text = trimmed(expression)
        // Longest operators first, so `<=` is not read as `<` followed by `=1s`.
        for comparison in Comparison.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count })
        where text.hasPrefix(comparison.rawValue) {
            let rest = trimmed(String(text.dropFirst(comparison.rawValue.count)))
            guard !rest.isEmpty else { break }
            return (comparison, rest)
        }
        throw ParseError(message: "expected '\(key)' as a comparison such as \"< 1s\" or \">= 99%\" "
            + "(operators: <, <=, >, >=, ==, !=), got '\(expression)'")
    }

    static let durationScale: [(unit: String, micros: Double)] = [
        ("ns", 0.001), ("us", 1), ("µs", 1), ("ms", 1_000), ("s", 1_000_000), ("m", 60_000_000), ("h", 3_600_000_000),
    ]

    /// `800ms` → 800000; units are required so `1` cannot silently mean a microsecond.
    static func durationMicros(_ text: String) -> Double? {
        let number = String(text.prefix { $0.isNumber || $0 == "." })
        let unit = trimmed(String(text.dropFirst(number.count)))
        guard let value = Double(number), value.isFinite,
              let scale = durationScale.first(where: { $0.unit == unit })?.micros else { return nil }
        return value * scale
    }

    static func fraction(_ text: String) -> Double? {
        if text.hasSuffix("%") {
            guard let value = Double(trimmed(String(text.dropLast()))), value.isFinite else { return nil }
            return value / 100
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }

    /// 99 → "99", 99.9 → "99.9", without Foundation.
    public static func shortNumber(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

// MARK: - Codable

/// In summary.json a threshold reads `{"key": "push_to_report.p99", "subject": {"kind": "latency", "name":
/// "push_to_report", "statistic": "p99"}, "comparison": "<", "limit": 1000000, …}`; the subject is derived from the
/// key again when reading, so the two cannot disagree.
extension Threshold: Codable {
    private enum CodingKeys: String, CodingKey {
        case key, subject, comparison, limit, limitText, abortOnFail, source
    }

    private struct SubjectDescription: Codable {
        var kind: String
        var name: String
        var statistic: String?
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let key = try container.decode(String.self, forKey: .key)
        let subject: Subject
        do {
            subject = try Threshold.parseSubject(key)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: error.message)
        }
        self.init(
            key: key, subject: subject, comparison: try container.decode(Comparison.self, forKey: .comparison),
            limit: try container.decode(Double.self, forKey: .limit),
            limitText: try container.decode(String.self, forKey: .limitText),
            abortOnFail: try container.decodeIfPresent(Bool.self, forKey: .abortOnFail) ?? false,
            source: try container.decodeIfPresent(String.self, forKey: .source) ?? "")
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        let description: SubjectDescription
        switch subject {
        case let .latency(metric, statistic):
            description = SubjectDescription(kind: "latency", name: metric, statistic: statistic.label)
        case .ratio(let ratio): description = SubjectDescription(kind: "ratio", name: ratio.rawValue)
        case .counter(let name): description = SubjectDescription(kind: "counter", name: name)
        }
        try container.encode(description, forKey: .subject)
        try container.encode(comparison, forKey: .comparison)
        try container.encode(limit, forKey: .limit)
        try container.encode(limitText, forKey: .limitText)
        try container.encode(abortOnFail, forKey: .abortOnFail)
        try container.encode(source, forKey: .source)
    }
}
