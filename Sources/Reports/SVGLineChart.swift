import Foundation
import TextEscaping

/// A line chart rendered as inline SVG, with no script and no external resource, so a report stays one
/// self-contained file that prints and opens offline.
///
/// Reused for every time series in the report (latency per second, calls per second) and, with a percentile
/// x axis, for HdrHistogram-style percentile-distribution plots. Add a chart by building one of these and
/// calling `svg()`.
public struct SVGLineChart: Sendable {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public struct Series: Sendable {
        public var name: String
        /// Any CSS colour.
        public var color: String
        public var points: [Point]
        public var dashed: Bool
        /// The line is broken where consecutive x values differ by more than this (e.g. seconds without
        /// samples), so the chart does not invent data across a gap.
        public var maximumGap: Double?

        public init(name: String, color: String, points: [Point], dashed: Bool = false, maximumGap: Double? = nil) {
            self.name = name
            self.color = color
            self.points = points
            self.dashed = dashed
            self.maximumGap = maximumGap
        }
    }

    /// A horizontal line such as the push deadline.
    public struct ReferenceLine: Sendable {
        public var y: Double
        public var label: String
        public var color: String

        public init(y: Double, label: String, color: String = "#5f6368") {
            self.y = y
            self.label = label
            self.color = color
        }
    }

    /// A shaded span of the x axis such as a fault window.
    public struct ShadedRange: Sendable {
        public var fromX: Double
        public var toX: Double
        public var label: String
        public var color: String

        public init(fromX: Double, toX: Double, label: String, color: String = "#fbbc04") {
            self.fromX = fromX
            self.toX = toX
            self.label = label
            self.color = color
        }
    }

    public enum XAxis: Sendable {
        /// Plain linear axis.
        case linear(label: String)
        /// x values are percentiles (0...100) drawn at log10(1 / (1 - p/100)), labelled 0 %, 90 %, 99 %,
        /// 99.9 %, …; points at 100 % are drawn at the right edge.
        case percentile(label: String)
    }

    public var title: String
    public var xAxis: XAxis
    public var yLabel: String
    public var series: [Series]
    public var referenceLine: ReferenceLine?
    public var shadedRanges: [ShadedRange]
    /// Size of the viewBox; the SVG scales to its container's width.
    public var width: Double
    public var height: Double
    /// Shown instead of lines when no series has a point.
    public var emptyMessage: String

    public init(
        title: String, xAxis: XAxis, yLabel: String, series: [Series], referenceLine: ReferenceLine? = nil,
        shadedRanges: [ShadedRange] = [], width: Double = 760, height: Double = 320,
        emptyMessage: String = "no samples"
    ) {
        self.title = title
        self.xAxis = xAxis
        self.yLabel = yLabel
        self.series = series
        self.referenceLine = referenceLine
        self.shadedRanges = shadedRanges
        self.width = width
        self.height = height
        self.emptyMessage = emptyMessage
    }

    // MARK: - Layout

    private let marginLeft = 68.0
    private let marginRight = 20.0
    private let marginTop = 40.0
    private let marginBottom = 48.0
    private var plotWidth: Double { width - marginLeft - marginRight }
    private var plotHeight: Double { height - marginTop - marginBottom }

    /// Points with finite coordinates only: a NaN would make the whole path invalid.
    private var drawableSeries: [Series] {
        series.map { item in
            var copy = item
            copy.points = item.points.filter { $0.x.isFinite || ($0.x == .infinity && isPercentileAxis) }
                .filter { $0.y.isFinite }
            return copy
        }
    }

    private var isPercentileAxis: Bool {
        if case .percentile = xAxis { return true }
        return false
    }

    private var xLabel: String {
        switch xAxis {
        case let .linear(label), let .percentile(label): return label
        }
    }

    /// Highest "nines" shown on a percentile axis: enough for the deepest finite percentile plotted.
    private func percentileNines(_ all: [Series]) -> Int {
        let deepest = all.flatMap(\.points).map(\.x).filter { $0 < 100 }.map(Self.percentileTransform).max() ?? 0
        return Swift.min(Swift.max(Int((deepest - 1e-9).rounded(.up)), 2), 7)
    }

    private static func percentileTransform(_ percentile: Double) -> Double {
        let clamped = Swift.min(Swift.max(percentile, 0), 100)
        return clamped >= 100 ? .infinity : log10(100 / (100 - clamped))
    }

    // MARK: - Rendering

    /// The chart as an `<svg>` element for embedding in HTML (no xmlns needed inline, so no URL appears).
    /// - Parameter id: written as `data-chart`, so tests and scripts can find a chart by name.
    public func svg(id: String? = nil) -> String {
        let all = drawableSeries
        let idAttribute = id.map { " data-chart=\"\($0.markupEscaped)\"" } ?? ""
        // The head is written last for a chart with points: its viewBox grows when the legend takes rows below
        // the plot, which replaced the head's viewBox in the whole text with Foundation's `replacingOccurrences`
        // (~5 k instructions a SIP call at the bench's rate, the text growing with the run).
        func head(height: Double) -> String {
            var out = "<svg class=\"chart\"\(idAttribute) viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" "
            out += "aria-label=\"\(title.markupEscaped)\" preserveAspectRatio=\"xMidYMid meet\">\n"
            out += "<title>\(title.markupEscaped)</title>\n"
            out += "<text x=\"\(n(marginLeft))\" y=\"22\" class=\"chart-title\">\(title.markupEscaped)</text>\n"
            return out
        }
        guard all.contains(where: { !$0.points.isEmpty }) else {
            var out = head(height: height)
            out += "<rect x=\"\(n(marginLeft))\" y=\"\(n(marginTop))\" width=\"\(n(plotWidth))\" "
            out += "height=\"\(n(plotHeight))\" fill=\"none\" stroke=\"#dadce0\"/>\n"
            out += "<text x=\"\(n(marginLeft + plotWidth / 2))\" y=\"\(n(marginTop + plotHeight / 2))\" "
            out += "text-anchor=\"middle\" class=\"chart-empty\">\(emptyMessage.markupEscaped)</text>\n</svg>"
            return out
        }
        let frame = self.frame(all)
        let body = shades(frame) + gridAndAxes(frame) + reference(frame) + lines(all, frame)
        let (legend, grown) = self.legend(all)
        return head(height: grown ?? height) + body + "<g class=\"legend\">\n\(legend)</g>\n</svg>"
    }

    /// Where the plot's values land: the x and y domains, their ticks, and the mappings into the viewBox.
    private struct Frame {
        var xTicks: [(value: Double, label: String)]
        var yScale: NiceScale
        var mapX: (Double) -> Double
        var mapY: (Double) -> Double
        var plotBottom: Double
    }

    private func frame(_ all: [Series]) -> Frame {
        let nines = percentileNines(all)
        let xTicks: [(value: Double, label: String)]
        let xMin: Double
        let xMax: Double
        if isPercentileAxis {
            xMin = 0
            xMax = Double(nines)
            var ticks: [(Double, String)] = [(0, "0%"), (log10(2), "50%")]
            for nine in 1...nines {
                ticks.append((Double(nine), Self.percentileLabel(nines: nine)))
            }
            xTicks = ticks
        } else {
            let xs = all.flatMap(\.points).map(\.x) + shadedRanges.flatMap { [$0.fromX, $0.toX] }
            let scale = NiceScale(minimum: xs.min() ?? 0, maximum: xs.max() ?? 1, includeZero: false)
            xMin = scale.lower
            xMax = scale.upper
            xTicks = scale.ticks.map { ($0, scale.label($0)) }
        }
        let (percentile, left, width) = (isPercentileAxis, marginLeft, plotWidth)
        let mapX = { (x: Double) -> Double in
            let position = percentile ? Swift.min(Self.percentileTransform(x), xMax) : x
            return left + (position - xMin) / (xMax - xMin) * width
        }
        var ys = all.flatMap(\.points).map(\.y)
        if let reference = referenceLine, reference.y.isFinite { ys.append(reference.y) }
        // A little headroom so a line at its maximum does not merge with the frame.
        let yLow = ys.min() ?? 0
        let yHigh = ys.max() ?? 1
        let yScale = NiceScale(minimum: yLow, maximum: yHigh + (yHigh - Swift.min(yLow, 0)) * 0.04, includeZero: true)
        let (top, height) = (marginTop, plotHeight)
        let mapY = { (y: Double) -> Double in
            top + height - (y - yScale.lower) / (yScale.upper - yScale.lower) * height
        }
        return Frame(xTicks: xTicks, yScale: yScale, mapX: mapX, mapY: mapY, plotBottom: marginTop + plotHeight)
    }

    /// Shaded ranges, behind everything.
    private func shades(_ f: Frame) -> String {
        var out = ""
        for range in shadedRanges where range.fromX.isFinite && range.toX.isFinite {
            let left = Swift.max(f.mapX(Swift.min(range.fromX, range.toX)), marginLeft)
            let right = Swift.min(f.mapX(Swift.max(range.fromX, range.toX)), marginLeft + plotWidth)
            guard right > left else { continue }
            out += "<g class=\"shade\"><title>\(range.label.markupEscaped)</title>"
            out += "<rect x=\"\(n(left))\" y=\"\(n(marginTop))\" width=\"\(n(right - left))\" "
            out += "height=\"\(n(plotHeight))\" fill=\"\(range.color.markupEscaped)\" fill-opacity=\"0.18\"/>"
            out += "<text x=\"\(n(left + 3))\" y=\"\(n(marginTop + plotHeight - 5))\" class=\"shade-label\">"
            out += "\(range.label.markupEscaped)</text></g>\n"
        }
        return out
    }

    /// Grid and axes: each tick gives a grid line and a label, gathered apart because the frame sits between.
    private func gridAndAxes(_ f: Frame) -> String {
        var grid = "<g class=\"grid\" stroke=\"#e8eaed\" stroke-width=\"1\">\n"
        var labels = "<g class=\"axis\">\n"
        for tick in f.yScale.ticks {
            let y = f.mapY(tick)
            grid += "<line x1=\"\(n(marginLeft))\" x2=\"\(n(marginLeft + plotWidth))\" "
            grid += "y1=\"\(n(y))\" y2=\"\(n(y))\"/>\n"
            labels += "<text x=\"\(n(marginLeft - 6))\" y=\"\(n(y + 4))\" text-anchor=\"end\">"
            labels += "\(f.yScale.label(tick))</text>\n"
        }
        for tick in f.xTicks {
            let x = n(f.mapX(tickValue(tick.value)))
            grid += "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(n(marginTop))\" y2=\"\(n(f.plotBottom))\"/>\n"
            labels += "<text x=\"\(x)\" y=\"\(n(f.plotBottom + 16))\" text-anchor=\"middle\">"
            labels += "\(tick.label.markupEscaped)</text>\n"
        }
        var out = grid + "</g>\n"
        out += "<rect x=\"\(n(marginLeft))\" y=\"\(n(marginTop))\" width=\"\(n(plotWidth))\" "
        out += "height=\"\(n(plotHeight))\" fill=\"none\" stroke=\"#9aa0a6\"/>\n"
        out += labels
        out += "<text x=\"\(n(marginLeft + plotWidth / 2))\" y=\"\(n(height - 8))\" text-anchor=\"middle\" "
        out += "class=\"axis-label\">\(xLabel.markupEscaped)</text>\n"
        let yLabelY = marginTop + plotHeight / 2
        out += "<text x=\"16\" y=\"\(n(yLabelY))\" text-anchor=\"middle\" class=\"axis-label\" "
        out += "transform=\"rotate(-90 16 \(n(yLabelY)))\">\(yLabel.markupEscaped)</text>\n"
        return out + "</g>\n"
    }

    private func reference(_ f: Frame) -> String {
        guard let reference = referenceLine, reference.y.isFinite else { return "" }
        let y = f.mapY(reference.y)
        var out = "<g class=\"reference\"><line x1=\"\(n(marginLeft))\" x2=\"\(n(marginLeft + plotWidth))\" "
        out += "y1=\"\(n(y))\" y2=\"\(n(y))\" stroke=\"\(reference.color.markupEscaped)\" stroke-width=\"1.5\" "
        out += "stroke-dasharray=\"6 4\"/>"
        out += "<text x=\"\(n(marginLeft + plotWidth - 4))\" y=\"\(n(y - 5))\" text-anchor=\"end\" "
        out += "fill=\"\(reference.color.markupEscaped)\">\(reference.label.markupEscaped)</text></g>\n"
        return out
    }

    private func lines(_ all: [Series], _ f: Frame) -> String {
        var out = ""
        for item in all where !item.points.isEmpty {
            let dash = item.dashed ? " stroke-dasharray=\"4 3\"" : ""
            let peak = item.points.max { $0.y < $1.y }!
            let hover = "\(item.name): peak \(NiceScale.plain(peak.y)) at \(NiceScale.plain(peak.x)), "
                + "last \(NiceScale.plain(item.points.last!.y))"
            out += "<g class=\"series\" data-hover=\"\(hover.markupEscaped)\">"
            out += "<title>\(item.name.markupEscaped)</title>\n"
            for segment in segments(of: item) {
                if segment.count == 1 {
                    out += "<circle cx=\"\(n(f.mapX(segment[0].x)))\" cy=\"\(n(f.mapY(segment[0].y)))\" r=\"2.5\" "
                    out += "fill=\"\(item.color.markupEscaped)\"/>\n"
                } else {
                    let path = segment.map { "\(n(f.mapX($0.x))),\(n(f.mapY($0.y)))" }.joined(separator: " ")
                    out += "<polyline fill=\"none\" stroke=\"\(item.color.markupEscaped)\" stroke-width=\"1.8\" "
                    out += "stroke-linejoin=\"round\"\(dash) points=\"\(path)\"/>\n"
                }
            }
            out += "</g>\n"
        }
        return out
    }

    /// Legend top right above the plot; when it would run into the title, in rows below the chart instead (the
    /// viewBox grows to hold them: its height is returned then, nil otherwise).
    private func legend(_ all: [Series]) -> (String, Double?) {
        let widths = all.map { Double($0.name.count) * 6.6 + 30 }
        let titleEnd = marginLeft + Double(title.count) * 8.4 + 16
        var legend = ""
        if widths.reduce(0, +) <= marginLeft + plotWidth - titleEnd {
            var legendX = marginLeft + plotWidth
            for (item, textWidth) in zip(all, widths).reversed() {
                legendX -= textWidth
                legend += legendEntry(item, x: legendX, y: 30)
            }
        } else {
            var x = marginLeft
            var y = height + 4
            for (item, textWidth) in zip(all, widths) {
                if x + textWidth > marginLeft + plotWidth, x > marginLeft {
                    x = marginLeft
                    y += 18
                }
                legend += legendEntry(item, x: x, y: y)
                x += textWidth
            }
            return (legend, y + 12)
        }
        return (legend, nil)
    }

    private func legendEntry(_ item: Series, x: Double, y: Double) -> String {
        let dash = item.dashed ? " stroke-dasharray=\"4 3\"" : ""
        return "<line x1=\"\(n(x))\" x2=\"\(n(x + 18))\" y1=\"\(n(y))\" y2=\"\(n(y))\" "
            + "stroke=\"\(item.color.markupEscaped)\" stroke-width=\"2.5\"\(dash)/>"
            + "<text x=\"\(n(x + 22))\" y=\"\(n(y + 4))\">\(item.name.markupEscaped)</text>\n"
    }

    /// Percentile tick positions are given already transformed; undo that so `mapX` can transform again.
    private func tickValue(_ position: Double) -> Double {
        isPercentileAxis ? 100 - 100 / pow(10, position) : position
    }

    private static func percentileLabel(nines: Int) -> String {
        // 1 → "90%", 2 → "99%", 3 → "99.9%", …
        nines <= 2 ? (nines == 1 ? "90%" : "99%") : "99." + String(repeating: "9", count: nines - 2) + "%"
    }

    private func segments(of item: Series) -> [[Point]] {
        var result: [[Point]] = []
        var current: [Point] = []
        for point in item.points {
            if let gap = item.maximumGap, let last = current.last, point.x - last.x > gap {
                result.append(current)
                current = []
            }
            current.append(point)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// Coordinates with two decimals: enough for any screen, and keeps the file small.
    private func n(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}

/// Axis bounds and ticks at 1, 2, 2.5 or 5 × 10^k, so gridlines fall on round numbers.
struct NiceScale {
    let lower: Double
    let upper: Double
    let step: Double
    let ticks: [Double]

    init(minimum: Double, maximum: Double, includeZero: Bool, targetTicks: Int = 5) {
        var low = includeZero ? Swift.min(minimum, 0) : minimum
        var high = includeZero ? Swift.max(maximum, 0) : maximum
        if !low.isFinite || !high.isFinite { (low, high) = (0, 1) }
        if high - low < 1e-12 {
            // A flat line still needs a visible range around it.
            let pad = Swift.max(abs(high) * 0.1, 1)
            high += pad
            low = includeZero && low >= 0 ? Swift.max(low - pad, 0) : low - pad
        }
        let rough = (high - low) / Double(targetTicks)
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let multiple = [1.0, 2.0, 2.5, 5.0, 10.0].first { $0 * magnitude >= rough } ?? 10
        let step = multiple * magnitude
        let lower = (low / step).rounded(.down) * step
        let upper = (high / step).rounded(.up) * step
        let count = Int(((upper - lower) / step).rounded())
        self.step = step
        self.lower = lower
        self.upper = upper
        ticks = (0...Swift.max(count, 1)).map { lower + Double($0) * step }
    }

    /// A readable number for hover text: up to three decimals, no trailing zeros.
    static func plain(_ value: Double) -> String {
        var text = ReportFormat.fixed(value, decimals: 3)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// As many decimals as the step needs (0.25 → 2), so labels are exact and uniform.
    func label(_ value: Double) -> String {
        var decimals = 0
        while decimals < 6 {
            let scaled = step * pow(10, Double(decimals))
            if abs(scaled - scaled.rounded()) < 1e-6 { break }
            decimals += 1
        }
        return ReportFormat.fixed(abs(value) < step / 1e6 ? 0 : value, decimals: decimals)
    }
}
