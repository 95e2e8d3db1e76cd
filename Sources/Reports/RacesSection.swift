import Checker
import TextEscaping

/// What the history checker found, for the Races section of report.html: the rules checked, violations by rule,
/// violations per race offset (a heat strip) and per operation pair, and timelines of the first violations.
///
/// Plain data, saved as raw/races.json by the run (and `callstorm check`), so `callstorm report` rebuilds it.
public struct RacesSection: Sendable, Codable, Equatable {
    public struct RuleRow: Sendable, Codable, Equatable {
        public var rule: String
        public var violations: Int
        public init(rule: String, violations: Int) {
            self.rule = rule
            self.violations = violations
        }
    }

    public struct TimelineFigure: Sendable, Codable, Equatable {
        /// 1-based violation number (violation-<n>.svg, repro-<n>.yaml).
        public var number: Int
        public var rule: String
        public var message: String
        public var offsetNanos: Int64?
        public var svg: String
        public init(number: Int, rule: String, message: String, offsetNanos: Int64?, svg: String) {
            self.number = number
            self.rule = rule
            self.message = message
            self.offsetNanos = offsetNanos
            self.svg = svg
        }
    }

    public var operations: Int
    public var indeterminate: Int
    public var rules: [RuleRow]
    public var races: Int
    /// The checker's own rows (`RaceSummary`), so the report shows exactly what the checker counted.
    public var offsets: [RaceSummary.OffsetRow]
    public var pairs: [RaceSummary.PairRow]
    public var timelines: [TimelineFigure]
    /// Repro files written, by violation number.
    public var repros: [Int]
    /// Rules the checker could not run on this history (rule → why), e.g. version rules on a server whose views
    /// carry no version.
    public var skipped: [String: String]?

    public init(operations: Int, indeterminate: Int, rules: [RuleRow], races: Int, offsets: [RaceSummary.OffsetRow],
                pairs: [RaceSummary.PairRow], timelines: [TimelineFigure], repros: [Int] = []) {
        self.operations = operations
        self.indeterminate = indeterminate
        self.rules = rules
        self.races = races
        self.offsets = offsets
        self.pairs = pairs
        self.timelines = timelines
        self.repros = repros
    }

    public var violations: Int { rules.reduce(0) { $0 + $1.violations } }

    /// `invariant` or `policy` (docs/CHECKER.md), for a rule name the checker knows; `rule` otherwise.
    static func kind(of rule: String) -> String { Rule(rawValue: rule)?.kind.rawValue ?? "rule" }

    /// The section's HTML.
    func html() -> String {
        var html = "<section id=\"races\">\n<h2>Races</h2>\n"
        html += "<p>History checker: \(operations) operations (\(indeterminate) indeterminate), \(races) races fired, "
        html += "<strong>\(violations) violation\(violations == 1 ? "" : "s")</strong>.</p>\n"
        html += "<table class=\"numbers\" id=\"races-rules\">\n<thead><tr><th>rule checked</th><th>kind</th>"
        html += "<th>violations</th></tr></thead>\n<tbody>\n"
        for row in rules {
            html += "<tr\(row.violations > 0 ? " class=\"failed\"" : "")><th scope=\"row\"><code>"
            html += "\(row.rule.markupEscaped)</code></th><td>\(Self.kind(of: row.rule))</td>"
            html += "<td>\(row.violations)</td></tr>\n"
        }
        html += "</tbody>\n</table>\n"
        for (rule, why) in (skipped ?? [:]).sorted(by: { $0.key < $1.key }) {
            html += "<p class=\"skipped-rule\">Not checked (\(Self.kind(of: rule))): "
            html += "<code>\(rule.markupEscaped)</code>: "
            html += "\(why.markupEscaped).</p>\n"
        }
        if !offsets.isEmpty {
            html += "<h3>Violations per offset</h3>\n" + heatStrip()
        }
        if !pairs.isEmpty {
            html += "<h3>Violations per operation pair</h3>\n"
            html += "<table class=\"numbers\" id=\"races-pairs\">\n<thead><tr><th>race</th><th>operations</th>"
            html += "<th>races</th><th>violations</th><th>races with a violation</th><th>by rule</th>"
            html += "<th>outcomes</th></tr></thead>\n"
            html += "<tbody>\n"
            for p in pairs {
                let rules = p.violationsByRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    .joined(separator: ", ")
                html += "<tr><th scope=\"row\">\(p.name.markupEscaped)</th><td>\(p.label.markupEscaped)</td>"
                html += "<td>\(p.races)</td><td>\(p.violations)</td><td>\(p.racesWithViolations)</td>"
                let outcomes = (p.outcomes ?? [:]).sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                    .map { "\($0.key): \($0.value)" }.joined(separator: "; ")
                html += "<td>\(rules.markupEscaped)</td><td>\(outcomes.markupEscaped)</td></tr>\n"
            }
            html += "</tbody>\n</table>\n"
        }
        if !timelines.isEmpty {
            html += "<h3>First violations</h3>\n"
            for t in timelines {
                var caption = "\(t.number). <code>\(t.rule.markupEscaped)</code>"
                if let o = t.offsetNanos { caption += " at offset \(Self.offsetText(o))" }
                caption += ": \(t.message.markupEscaped)"
                if repros.contains(t.number) {
                    caption += " — replay: <code>callstorm replay repro-\(t.number).yaml --repeat 10</code>"
                }
                html += "<figure class=\"race-timeline\">\n<figcaption>\(caption)</figcaption>\n\(t.svg)\n</figure>\n"
            }
        }
        return html + "</section>\n"
    }

    /// One cell per offset: its colour is the share of races at that offset that broke a rule (white none,
    /// deep red all), with the counts in the cell's tooltip and the offsets labelled underneath.
    private func heatStrip() -> String {
        // Up to ~1,000 px wide: a ±20 ms sweep by 1 ms still fits a page.
        let cell = max(8, min(28, 1000 / max(1, offsets.count))), height = 34, left = 8
        let width = left * 2 + cell * offsets.count
        var svg = "<svg class=\"heat-strip\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" "
        svg += "height=\"\(height + 40)\" viewBox=\"0 0 \(width) \(height + 40)\" role=\"img\" "
        svg += "aria-label=\"violations per offset\">\n"
        for (i, o) in offsets.enumerated() {
            let share = o.races > 0 ? Double(o.racesWithViolations) / Double(o.races) : 0
            let x = left + i * cell
            let shade = o.racesWithViolations == 0 ? "#ffffff" : Self.red(share)
            svg += "<rect x=\"\(x)\" y=\"4\" width=\"\(cell - 2)\" height=\"\(height)\" fill=\"\(shade)\" "
            svg += "stroke=\"#bbb\"><title>offset \(Self.offsetText(o.offsetNanos)): \(o.races) races, "
            svg += "\(o.racesWithViolations) with a violation, \(o.violations) violations</title></rect>\n"
            if o.violations > 0, cell >= 20 {
                svg += "<text x=\"\(x + cell / 2 - 1)\" y=\"\(4 + height / 2 + 4)\" text-anchor=\"middle\" "
                svg += "font-size=\"10\" fill=\"\(share > 0.5 ? "#fff" : "#000")\">\(o.violations)</text>\n"
            }
            if offsets.count <= 24 || i % max(1, offsets.count / 12) == 0 {
                svg += "<text x=\"\(x + cell / 2 - 1)\" y=\"\(height + 20)\" text-anchor=\"middle\" font-size=\"9\" "
                svg += "transform=\"rotate(-45 \(x + cell / 2 - 1) \(height + 20))\">"
                svg += "\(Self.offsetText(o.offsetNanos))</text>\n"
            }
        }
        svg += "</svg>\n"
        return svg + "<p class=\"legend\">Each cell is one offset of the second action after the first "
            + "(negative: it fired first); the number is violations there, the shade the share of races with one.</p>\n"
    }

    static func red(_ share: Double) -> String {
        let s = min(1, max(0, share))
        let g = Int((1 - s) * 200 + 20), r = Int(255 - s * 75)
        return "rgb(\(r),\(g),\(g))"
    }

    static func offsetText(_ nanos: Int64) -> String {
        let ms = Double(nanos) / 1e6
        if ms == ms.rounded() { return "\(Int64(ms)) ms" }
        return "\(ms) ms"
    }
}
