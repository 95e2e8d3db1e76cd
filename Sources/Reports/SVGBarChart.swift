import Foundation
import TextEscaping

/// Horizontal stacked bars as inline SVG: one bar per label (an action kind), one segment per part (an
/// outcome), each segment's width proportional to its share of the bar's total, with the counts in a hover title.
public struct SVGBarChart: Sendable {
    public struct Segment: Sendable {
        public var name: String
        public var value: Double
        public var color: String

        public init(name: String, value: Double, color: String) {
            self.name = name
            self.value = value
            self.color = color
        }
    }

    public struct Bar: Sendable {
        public var label: String
        public var segments: [Segment]

        public init(label: String, segments: [Segment]) {
            self.label = label
            self.segments = segments
        }
    }

    public var title: String
    public var bars: [Bar]
    public var width: Double
    public var emptyMessage: String

    public init(title: String, bars: [Bar], width: Double = 760, emptyMessage: String = "no actions") {
        self.title = title
        self.bars = bars
        self.width = width
        self.emptyMessage = emptyMessage
    }

    private let labelWidth = 110.0
    private let rowHeight = 26.0
    private let top = 46.0

    public func svg(id: String? = nil) -> String {
        let shown = bars.filter { $0.segments.contains { $0.value > 0 } }
        let height = top + Double(max(shown.count, 1)) * rowHeight + 16
        let idAttribute = id.map { " data-chart=\"\($0.markupEscaped)\"" } ?? ""
        var out = "<svg class=\"chart\"\(idAttribute) viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" "
        out += "aria-label=\"\(title.markupEscaped)\" preserveAspectRatio=\"xMidYMid meet\">\n"
        out += "<title>\(title.markupEscaped)</title>\n"
        out += "<text x=\"\(n(labelWidth))\" y=\"22\" class=\"chart-title\">\(title.markupEscaped)</text>\n"
        let plotWidth = width - labelWidth - 20
        guard !shown.isEmpty else {
            out += "<text x=\"\(n(labelWidth + plotWidth / 2))\" y=\"\(n(top + 16))\" text-anchor=\"middle\" "
            out += "class=\"chart-empty\">\(emptyMessage.markupEscaped)</text>\n</svg>"
            return out
        }
        // Legend of every segment name, in order.
        var legendX = labelWidth
        for segment in shown[0].segments {
            out += "<rect x=\"\(n(legendX))\" y=\"30\" width=\"10\" height=\"10\" "
            out += "fill=\"\(segment.color.markupEscaped)\"/>"
            out += "<text x=\"\(n(legendX + 14))\" y=\"39\">\(segment.name.markupEscaped)</text>\n"
            legendX += Double(segment.name.count) * 6.6 + 30
        }
        for (row, bar) in shown.enumerated() {
            let y = top + Double(row) * rowHeight + 4
            let total = bar.segments.reduce(0) { $0 + max($1.value, 0) }
            out += "<text x=\"\(n(labelWidth - 8))\" y=\"\(n(y + 14))\" text-anchor=\"end\">"
            out += "\(bar.label.markupEscaped)</text>\n"
            var x = labelWidth
            for segment in bar.segments where segment.value > 0 {
                let w = plotWidth * segment.value / total
                let hover = "\(bar.label) \(segment.name): \(NiceScale.plain(segment.value)) of \(NiceScale.plain(total))"
                out += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(rowHeight - 8))\" "
                out += "fill=\"\(segment.color.markupEscaped)\" data-hover=\"\(hover.markupEscaped)\">"
                out += "<title>\(hover.markupEscaped)</title></rect>\n"
                x += w
            }
        }
        out += "</svg>"
        return out
    }

    private func n(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
