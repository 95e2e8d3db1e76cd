import Metrics
import TextEscaping

/// The device sockets (`device.socket`): push to socket and push to state, the socket's connect time and event
/// delivery, and how sockets ended. Only in runs whose devices held sockets.
extension HTMLReport {
    func socketsSection() -> String {
        let counters = recorder.counters
        guard counters[MetricName.socketOpened] != nil || counters[MetricName.socketConnectFailed] != nil else {
            return ""
        }
        var html = "<section id=\"sockets\">\n<h2>Device sockets</h2>\n"
        html += "<p>push_to_socket: VoIP push accepted by the gateway → the socket it woke the app for is open. "
            + "push_to_state: push accepted → the first message on the socket about that conversation.</p>\n"
        let histograms = result.histograms.filter { MetricName.socketLatencies.contains($0.key) }
        html += percentileTable(histograms)
        let names = counters.keys.filter { $0.hasPrefix("socket.") }.sorted()
        html += "<table class=\"numbers\">\n<thead><tr><th>counter</th><th>count</th></tr></thead>\n<tbody>\n"
        for name in names {
            html += "<tr><th scope=\"row\">\(name.markupEscaped)</th><td>\(counters[name] ?? 0)</td></tr>\n"
        }
        html += "</tbody>\n</table>\n"
        html += socketLatencyChart(MetricName.pushToSocket, id: "push-to-socket")
        html += socketLatencyChart(MetricName.pushToState, id: "push-to-state")
        html += timeChart("sockets opened, lost and reconnected per second", yLabel: "sockets/s", series: [
            .init(name: "opened", color: "#1e8e3e", points: filled(recorder.counterSeries(MetricName.socketOpened))),
            .init(name: "lost", color: "#d93025", points: filled(recorder.counterSeries(MetricName.socketLost))),
            .init(name: "reconnects", color: "#f29900",
                  points: filled(recorder.counterSeries(MetricName.socketReconnects))),
        ], id: "socket-population", empty: "no sockets")
        return html + "</section>\n"
    }

    private func socketLatencyChart(_ metric: String, id: String) -> String {
        let stats = recorder.intervalStats(metric)
        return timeChart("\(metric) per second", yLabel: "ms", series: [
            .init(name: "p50", color: "#1a73e8", points: latencyPoints(stats, \.p50), maximumGap: 1),
            .init(name: "p90", color: "#f29900", points: latencyPoints(stats, \.p90), maximumGap: 1),
            .init(name: "p99", color: "#d93025", points: latencyPoints(stats, \.p99), maximumGap: 1),
        ], id: id, empty: "no \(metric) samples")
    }
}
