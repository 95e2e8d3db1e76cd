import Foundation
import Metrics
import TextEscaping

extension HTMLReport {
    /// The redial storm (`behavior.redial_after_drop`): one sentence with its figures, redials/s and the error
    /// rate per second against the baseline, with the kill shaded. Absent when the run redialled nothing.
    func stormSection() -> String {
        guard let storm = StormFigures(result) else { return "" }
        var html = "<section class=\"chart-section\" id=\"redial-storm\">\n<h2>Redial storm</h2>\n"
        html += "<p class=\"storm-summary\">\(Self.stormSentence(storm).markupEscaped)</p>\n"
        let redials = storm.redialsPerSecond.enumerated().map {
            SVGLineChart.Point(x: Double($0.offset), y: Double($0.element))
        }
        let rates = storm.errorRatePerSecond.enumerated().compactMap { s, rate in
            rate.map { SVGLineChart.Point(x: Double(s), y: $0 * 100) }
        }
        html += timeChart("redials per second", yLabel: "redials/s", series: [
            .init(name: "redials after a drop", color: "#1a73e8", points: redials),
        ], id: "storm-redials")
        html += timeChart("error rate per second (failed / ended calls)", yLabel: "%", series: [
            .init(name: "error rate", color: "#d93025", points: rates),
        ], reference: storm.baselineErrorRate.map {
            SVGLineChart.ReferenceLine(y: $0 * 100, label: "baseline " + String(format: "%.1f%%", $0 * 100))
        }, id: "storm-error-rate", empty: "no call ended")
        html += "</section>\n"
        return html
    }

    static func stormSentence(_ storm: StormFigures) -> String {
        var text = "\(storm.redials) redials after drops (peak \(storm.redialsPerSecond.max() ?? 0)/s; "
            + "\(storm.skipped) dropped calls not redialled)."
        if let f = storm.startFulfillment {
            text += " Starts during the storm: \(f.count), p50 " + String(format: "%.1f", f.p50) + " ms, p99 "
                + String(format: "%.1f", f.p99) + " ms."
        }
        if let baseline = storm.baselineErrorRate {
            text += " Baseline error rate " + String(format: "%.1f%%", baseline * 100) + "; "
            text += storm.recoverySeconds.map { "back to it \(String(format: "%.1f", $0)) s after the kill ended." }
                ?? "not back to it by the end of the run."
        } else if storm.killFromSecond != nil {
            text += " No call ended before the kill, so there is no baseline error rate."
        }
        return text
    }
}
