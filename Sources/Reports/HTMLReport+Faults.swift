import Foundation
import Metrics
import TextEscaping

extension HTMLReport {
    /// The fault table: one compact row per window, each metric family inside the window against the fault-free
    /// baseline. Latencies compare the calls a window hit (`fault.<window>.*`, by the call's planned time, the
    /// rule injection uses) with the calls no window hit (`no_fault.*`); counters compare the window's seconds with
    /// the seconds no window touched, a window's effects counted for one push deadline after it closes. So another
    /// window's faults never sit in the baseline. Each window links to its shading on the timelines.
    ///
    /// A window's name, seconds, settings and what it injected share its first cell, and the table is laid out
    /// to the page's width (`table-layout: fixed`, cells wrap), so a run with many families still fits a
    /// 1,280 px page (HTMLLayoutTests). A SIP run with push wake-ups gets the wake-up path's parts as well.
    func faultsSection() -> String {
        let windows = result.faultWindows
        guard !windows.isEmpty else { return "" }
        var html = "<section id=\"faults\">\n<h2>Fault windows</h2>\n"
        html += "<p class=\"faults-note\">Each cell: inside the window → fault-free baseline. Latencies are p99 over "
            + "the calls the window hit against the calls no window hit; rates are per second over the window's "
            + "seconds against the seconds no window touched.</p>\n"
        let latencies = faultTableLatencies()
        let rates = faultTableRates()
        html += "<table class=\"faults\">\n<thead><tr><th class=\"window\">window</th>"
        for name in latencies { html += "<th>\(name.replacingOccurrences(of: "_", with: " ")) p99</th>" }
        for (label, _) in rates { html += "<th>\(label.markupEscaped)</th>" }
        html += "</tr></thead>\n<tbody>\n"
        let baseline = baselineSeconds(windows)
        for w in windows {
            html += "<tr id=\"fault-\(w.label.markupEscaped)\">" + windowCell(w)
            for name in latencies {
                let inside = p99Text(recorder.histograms["fault.\(w.label).\(name)"])
                let base = p99Text(recorder.histograms["no_fault.\(name)"])
                html += "<td>\(inside) → \(base)</td>"
            }
            let own = Set((0...max(0, lastSecond)).filter { overlaps($0, w) })
            for (_, names) in rates {
                html += "<td>\(rateText(names, own)) → \(rateText(names, baseline))</td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n</section>\n"
        return html
    }

    /// The window's name (linking to its shading on the timelines), its seconds, what it is set to and what it
    /// injected, in one cell.
    private func windowCell(_ w: FaultSpan) -> String {
        let injected = (w.injected ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ")
        return "<th scope=\"row\" class=\"window\">"
            + "<a href=\"#push-timeline\" title=\"shaded on the timelines\">\(w.label.markupEscaped)</a>"
            + "<span class=\"when\">" + String(format: "%.1f–%.1f s", w.fromSecond, w.toSecond) + "</span>"
            + "<span class=\"set\">\((w.what ?? "").markupEscaped)</span>"
            + "<span class=\"injected\">injected: \(injected.isEmpty ? "—" : injected.markupEscaped)</span></th>"
    }

    /// The latency columns: the push's two, and the SIP wake-up path's parts when the run recorded them per
    /// window (sleeping SIP devices; connect, handshake and REGISTER on connections).
    private func faultTableLatencies() -> [String] {
        let wake = [MetricName.inviteToPush, MetricName.pushToRegister, MetricName.wakeConnect,
                    MetricName.wakeHandshake, MetricName.wakeRegister, MetricName.registerToInvite]
        let recorded = wake.filter { name in
            recorder.histograms.keys.contains { $0.hasPrefix("fault.") && $0.hasSuffix(".\(name)") }
                || recorder.histograms["no_fault.\(name)"] != nil
        }
        return [MetricName.pushToReport, MetricName.pushDelivery] + recorded
    }

    private func faultTableRates() -> [(String, [String])] {
        var rates: [(String, [String])] = [
            ("errors/s", recorder.counterNames.filter { $0.hasPrefix("errors.") }),
            ("calls missed/s", ["calls.missed"]), ("calls failed/s", ["calls.failed"]),
            ("deadline misses/s", ["push.deadline_missed"]),
        ]
        // Devices that hold sockets: lost sockets, and of them those callstorm's own faults ended.
        if recorder.counterNames.contains("socket.opened") {
            rates += [("sockets lost/s", ["socket.lost"]), ("of them injected/s", ["socket.lost.injected"])]
        }
        // Calls with media: one-way audio the windows' media faults explain, and the server's (docs/MEDIA.md).
        if recorder.counterNames.contains(MetricName.mediaCalls) {
            rates += [("one-way audio by faults/s", [MetricName.mediaOneWayAttributed]),
                      ("one-way audio by the server/s", [MetricName.mediaOneWayWithoutFault])]
        }
        // The phone's life (issue 37): its events per second beside the calls the windows' faults spoiled.
        let life = ["interrupted", "manager_reset", "relaunch", "filtered"].map { MetricName.life($0) }
        if life.contains(where: { recorder.counterNames.contains($0) }) {
            rates += [("life events/s", life), ("calls attributed to faults/s", [MetricName.callsAttributedToFaults])]
        }
        return rates
    }

    private func overlaps(_ second: Int, _ w: FaultSpan, lingerSeconds: Double = 0) -> Bool {
        Double(second) < w.toSecond + lingerSeconds && Double(second + 1) > w.fromSecond
    }

    /// Seconds no window touched: outside every window and the push deadline after it.
    private func baselineSeconds(_ windows: [FaultSpan]) -> Set<Int> {
        let linger = Double(facts.pushDeadlineMicros) / 1e6
        return Set((0...max(0, lastSecond)).filter { s in !windows.contains { overlaps(s, $0, lingerSeconds: linger) } })
    }

    private func p99Text(_ histogram: HdrHistogram?) -> String {
        guard let histogram, !histogram.isEmpty else { return "—" }
        return ReportFormat.shortMillis(histogram.value(atPercentile: 99)) + " ms"
    }

    private func rateText(_ names: [String], _ seconds: Set<Int>) -> String {
        guard !seconds.isEmpty else { return "—" }
        var total: Int64 = 0
        for name in names {
            for (second, value) in recorder.counterSeries(name) where seconds.contains(second) { total += value }
        }
        return String(format: "%.1f", Double(total) / Double(seconds.count))
    }
}
