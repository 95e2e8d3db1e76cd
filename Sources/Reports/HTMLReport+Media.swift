import Foundation
import Metrics
import TextEscaping
import Thresholds

/// The Media section (`media:`, docs/MEDIA.md): answer → audio per receiving end (percentiles and per second),
/// one-way audio named per call with whose it is (a fault window's, linked to its row in the fault table, or the
/// server's, linked to the checker's timeline of the call when it drew one), the loss / jitter / MOS distributions
/// with the harness's own send lag beside the jitter, and the relay's comparison when a relay ran. Absent when the run opened no media stream.
extension HTMLReport {
    func mediaSection() -> String {
        guard let media = MediaFigures(result) else { return "" }
        var html = "<section class=\"chart-section\" id=\"media\">\n<h2>Media</h2>\n"
        html += "<p class=\"media-summary\">\(Self.mediaSentence(media).markupEscaped)</p>\n"
        html += "<h3>Answer → audio</h3>\n"
        html += percentileTable(result.histograms.filter { Self.mediaTimings.contains($0.key) })
        html += mediaAnswerChart()
        html += oneWayTable(media)
        html += "<h3>Quality per stream</h3>\n" + qualityTable()
        html += mediaJitterChart()
        html += relayPart(media)
        return html + "</section>\n"
    }

    static let mediaTimings = [MetricName.answerToAudioCaller, MetricName.answerToAudioCallee,
                               MetricName.resumeToAudio]

    static func mediaSentence(_ m: MediaFigures) -> String {
        var text = "\(m.calls) call\(m.calls == 1 ? "" : "s") carried media; one-way audio on \(m.oneWayCalls)"
        text += m.oneWayRate.map { " (" + Threshold.percentText($0) + ")" } ?? ""
        if m.oneWayCalls > 0 {
            text += ": \(m.oneWayAttributed) explained by injected media faults, \(m.oneWayWithoutFault) with no "
                + "fault on their path (the server's)"
            let causes = m.episodes.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            if !causes.isEmpty { text += "; episodes: " + causes.joined(separator: ", ") }
        }
        text += ". Packets sent \(m.packetsSent), received \(m.packetsReceived), lost \(m.packetsLost)"
        text += m.lossRate.map { " (" + Threshold.percentText($0) + ")" } ?? ""
        if m.packetsWhileHeld > 0 { text += "; \(m.packetsWhileHeld) arrived at an end on hold" }
        return text + "."
    }

    /// Answer → audio per second, p50 and p99 of each receiving end.
    private func mediaAnswerChart() -> String {
        let caller = recorder.intervalStats(MetricName.answerToAudioCaller)
        let callee = recorder.intervalStats(MetricName.answerToAudioCallee)
        return timeChart("answer → audio per second", yLabel: "ms", series: [
            .init(name: "caller hears p50", color: "#1a73e8", points: latencyPoints(caller, \.p50), maximumGap: 1),
            .init(name: "caller hears p99", color: "#d93025", points: latencyPoints(caller, \.p99), maximumGap: 1),
            .init(name: "callee hears p50", color: "#1e8e3e", points: latencyPoints(callee, \.p50), maximumGap: 1),
            .init(name: "callee hears p99", color: "#f29900", points: latencyPoints(callee, \.p99), maximumGap: 1),
        ], id: "media-answer-timeline")
    }

    /// The receiver's jitter beside the sender's own lag behind its 20 ms plan, per second (p99 of the streams
    /// that closed in it): jitter as high as the lag is the harness's, not the network's or the relay's.
    private func mediaJitterChart() -> String {
        let jitter = recorder.intervalStats(MetricName.mediaJitter)
        let lag = recorder.intervalStats(MetricName.sendLagMax)
        return timeChart("jitter and the harness's send lag per second (streams closing)", yLabel: "ms", series: [
            .init(name: "jitter p99", color: "#9334e6", points: latencyPoints(jitter, \.p99), maximumGap: 1),
            .init(name: "send lag max p99", color: "#5f6368", points: latencyPoints(lag, \.p99), dashed: true,
                  maximumGap: 1),
        ], id: "media-jitter-timeline")
    }

    /// One-way audio calls by name: the call, its Call-ID, the end that heard nothing, the cause, and whose it is.
    /// A fault's episode links to its window's row in the fault table (its shading on the timelines from there).
    private func oneWayTable(_ media: MediaFigures) -> String {
        var html = "<h3>One-way audio</h3>\n"
        guard media.oneWayCalls > 0 else { return html + "<p class=\"empty\">no one-way audio</p>\n" }
        guard !media.named.isEmpty else { return html + "<p class=\"empty\">no episode named in the notes</p>\n" }
        html += "<table class=\"one-way\">\n<thead><tr><th>call</th><th>Call-ID</th><th>heard nothing</th>"
        html += "<th>cause</th><th>whose</th></tr></thead>\n<tbody>\n"
        for note in media.named {
            let whose: String
            if let fault = note.fault {
                let window = note.window ?? ""
                whose = "<a href=\"#fault-\(window.markupEscaped)\">\(fault.markupEscaped) (\(window.markupEscaped))"
                    + "</a>"
            } else if let number = checkerTimeline(of: note) {
                whose = "server (<a href=\"violation-\(number).svg\">checker timeline \(number)</a>)"
            } else {
                whose = "server"
            }
            html += "<tr id=\"media-call-\(note.call)\" data-call=\"\(note.call)\"><th scope=\"row\">\(note.call)</th>"
            html += "<td><code>\(note.callID.markupEscaped)</code></td><td>\(note.end.markupEscaped)</td>"
            html += "<td>\(note.cause.markupEscaped)</td><td>\(whose)</td></tr>\n"
        }
        html += "</tbody>\n</table>\n"
        if media.named.count < media.oneWayCalls {
            html += "<p class=\"empty\">The notes name the first \(media.named.count) episodes.</p>\n"
        }
        return html
    }

    /// The number of the checker's violation timeline (violation-<n>.svg beside the report) of this episode's
    /// call: its `joined-member-sends-media` finding names the Call-ID.
    private func checkerTimeline(of note: MediaOneWayNote) -> Int? {
        result.races?.timelines.first {
            $0.rule == "joined-member-sends-media" && $0.message.contains(" \(note.callID) ")
        }?.number
    }

    /// Loss (%), jitter (ms), the harness's send lag (ms) and MOS, per stream: the low tail matters for MOS, the
    /// high one for the rest.
    private func qualityTable() -> String {
        let rows: [(String, String, String, (Int64) -> String)] = [
            ("loss", MetricName.lossPercentX1000, "%", { ReportFormat.millis($0) }),
            ("jitter", MetricName.mediaJitter, "ms", { ReportFormat.millis($0) }),
            ("send lag max (harness)", MetricName.sendLagMax, "ms", { ReportFormat.millis($0) }),
            ("MOS", MetricName.mosX1000, "", MediaFigures.mosText),
        ]
        var html = "<table class=\"numbers media-quality\">\n<thead><tr><th>per stream</th><th>unit</th>"
        html += "<th>count</th><th>min</th><th>p5</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr></thead>\n"
        html += "<tbody>\n"
        for (label, metric, unit, format) in rows {
            guard let h = result.histograms[metric], !h.isEmpty else { continue }
            let cells = [h.min] + h.figures(atPercentiles: [5, 50, 95, 99]).values + [h.max]
            html += "<tr data-metric=\"\(metric.markupEscaped)\"><th scope=\"row\">\(label.markupEscaped)</th>"
            html += "<td>\(unit)</td><td>\(h.totalCount)</td>" + cells.map { "<td>\(format($0))</td>" }.joined()
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    // MARK: - Relay (target.sip.rtpengine)

    /// The relay's per-call packet counts against callstorm's (`media.relay.*`); a line saying so when no relay ran.
    private func relayPart(_ media: MediaFigures) -> String {
        var html = "<h3>Relay</h3>\n"
        guard let compared = media.relayCallsCompared else {
            return html + "<p class=\"empty\">no media relay in this run: RTP went straight between the ends</p>\n"
        }
        let mismatch = media.relayMismatch ?? 0
        html += "<p class=\"relay\">The relay's per-call packet counts compared with callstorm's on \(compared) "
        html += "call\(compared == 1 ? "" : "s"): \(mismatch) disagree"
        html += mismatch > 0 ? " (media-relay.csv names them).</p>\n" : ".</p>\n"
        return html
    }
}
