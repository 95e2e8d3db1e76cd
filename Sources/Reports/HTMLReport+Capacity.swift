import Metrics
import TextEscaping

extension HTMLReport {
    /// The knee of a `capacity:` ramp: the sentence, the statistic per window against the delivered rate (the
    /// chart capacity planners read). Fault windows are not shaded here: its x axis is a rate, not time.
    func capacitySection() -> String {
        guard let capacity = result.capacity else { return "" }
        let label = capacity.spec.limit.key
        var html = "<section class=\"chart-section\" id=\"capacity\">\n<h2>Capacity</h2>\n"
        html += "<p class=\"capacity-summary\">\(capacity.summary.markupEscaped)</p>\n"
        let judged = capacity.windows.filter { !$0.harnessBound }
        let passed = judged.filter(\.passed)
        let failed = judged.filter { !$0.passed }
        let bound = capacity.windows.filter(\.harnessBound)
        func points(_ windows: [CapacityWindow]) -> [SVGLineChart.Point] {
            windows.map { .init(x: $0.callsPerSecond, y: Double($0.valueMicros) / 1000) }
        }
        let limitLine = SVGLineChart.ReferenceLine(y: capacity.spec.limit.limit / 1000,
                                                   label: "limit \(capacity.spec.limit.limitText)", color: "#d93025")
        var beyond: [SVGLineChart.ShadedRange] = []
        if let broken = capacity.broken, let top = capacity.windows.map(\.callsPerSecond).max() {
            // A saturated harness or target may deliver less after the break than before it, so the shade
            // starts at the lower of the knee and the breaking window's rate.
            let from = min(capacity.kneeCallsPerSecond ?? broken.callsPerSecond, broken.callsPerSecond)
            beyond.append(.init(fromX: from, toX: top, label: "past the knee", color: "#f28b82"))
        }
        if let harness = capacity.harness, let top = capacity.windows.map(\.callsPerSecond).max() {
            // Rates from the last one the harness kept up with belong to callstorm's limit, not the target's.
            let from = min(harness.boundCallsPerSecond, bound.map(\.callsPerSecond).min() ?? top)
            beyond.append(.init(fromX: from, toX: max(top, from), label: "harness-bound", color: "#c6c6c6"))
        }
        html += SVGLineChart(
            title: "\(label) per \(capacity.spec.windowSeconds) s window against calls/s delivered",
            xAxis: .linear(label: "calls/s started (window mean)"), yLabel: "ms",
            series: [
                .init(name: "within the limit", color: "#1e8e3e", points: points(passed)),
                .init(name: "over the limit", color: "#d93025", points: points(failed)),
                .init(name: "harness-bound (not judged)", color: "#80868b", points: points(bound)),
            ],
            referenceLine: limitLine, shadedRanges: beyond, emptyMessage: "no window had enough samples"
        ).svg(id: "capacity-knee")
        html += "</section>\n"
        return html
    }
}
