import Foundation
import Metrics
import TextEscaping

/// The report's charts: the time series (push to report, actions, calls, population, errors, deadline misses,
/// the harness's own lag and resources) and the latency distribution, with fault windows shaded.
extension HTMLReport {
    // MARK: - Charts

    func chartSection(_ title: String, _ id: String, _ chart: String) -> String {
        "<section class=\"chart-section\" id=\"\(id)\">\n<h2>\(title.markupEscaped)</h2>\n\(chart)\n</section>\n"
    }

    var shadedFaults: [SVGLineChart.ShadedRange] {
        result.faultWindows.map { SVGLineChart.ShadedRange(fromX: $0.fromSecond, toX: $0.toSecond, label: $0.label) }
    }

    static let palette = ["#1a73e8", "#d93025", "#1e8e3e", "#f29900", "#9334e6", "#12b5cb", "#e8710a",
                                  "#5f6368", "#b31412", "#188038"]

    var deadlineLine: SVGLineChart.ReferenceLine? {
        facts.pushDeadlineMicros > 0
            ? .init(y: Double(facts.pushDeadlineMicros) / 1_000,
                    label: "deadline \(ReportFormat.shortMillis(facts.pushDeadlineMicros)) ms") : nil
    }

    /// Last second with any data, so counter series can be filled with zeros up to it.
    var lastSecond: Int {
        let metricSeconds = recorder.intervals.values.flatMap(\.keys)
        let counterSeconds = recorder.counterNames.compactMap { recorder.counterSeries($0).last?.second }
        return (metricSeconds + counterSeconds).max() ?? 0
    }

    /// A second without an increment really had zero, so counter series are filled rather than broken.
    func filled(_ series: [(second: Int, value: Int64)]) -> [SVGLineChart.Point] {
        guard !series.isEmpty else { return [] }
        let bySecond = Dictionary(series.map { ($0.second, $0.value) }, uniquingKeysWith: +)
        return (0...max(lastSecond, series.last!.second)).map { .init(x: Double($0), y: Double(bySecond[$0] ?? 0)) }
    }

    func latencyPoints(_ stats: [IntervalStat], _ value: (IntervalStat) -> Int64) -> [SVGLineChart.Point] {
        stats.map { .init(x: Double($0.second), y: Double(value($0)) / 1_000) }
    }

    func timeChart(_ title: String, yLabel: String, series: [SVGLineChart.Series],
                           reference: SVGLineChart.ReferenceLine? = nil, id: String,
                           empty: String = "no samples") -> String {
        SVGLineChart(title: title, xAxis: .linear(label: "seconds since start"), yLabel: yLabel, series: series,
                     referenceLine: reference, shadedRanges: shadedFaults, emptyMessage: empty)
            .svg(id: id)
    }

    func pushTimelineChart() -> String {
        let stats = recorder.intervalStats(Self.pushMetric)
        // A deadline far above every sample would flatten the lines into the axis; name it instead of drawing it.
        let peak = Double(stats.map(\.p99).max() ?? 0)
        let onScale = peak * 10 >= Double(facts.pushDeadlineMicros)
        let title = "\(Self.pushMetric) per second"
            + (onScale || facts.pushDeadlineMicros <= 0 ? ""
                : " (deadline \(ReportFormat.shortMillis(facts.pushDeadlineMicros)) ms is off scale)")
        return timeChart(title, yLabel: "ms", series: [
            .init(name: "p50", color: "#1a73e8", points: latencyPoints(stats, \.p50), maximumGap: 1),
            .init(name: "p90", color: "#f29900", points: latencyPoints(stats, \.p90), maximumGap: 1),
            .init(name: "p99", color: "#d93025", points: latencyPoints(stats, \.p99), maximumGap: 1),
        ], reference: onScale ? deadlineLine : nil, id: "push-timeline")
    }

    func actionTimelineChart() -> String {
        let series = actionKinds.enumerated().map { index, kind in
            SVGLineChart.Series(name: "\(kind) p99", color: Self.palette[index % Self.palette.count],
                                points: latencyPoints(recorder.intervalStats(MetricName.fulfillment(kind)), \.p99),
                                maximumGap: 1)
        }
        return timeChart("action fulfillment p99 per second, by kind", yLabel: "ms", series: series,
                         id: "action-timeline")
    }

    func callsTimelineChart() -> String {
        let ended = recorder.counterSeries(Self.completedCounter) + recorder.counterSeries(MetricName.callsFailed)
            + recorder.counterSeries(MetricName.callsMissed)
        // Calls outside parties placed (never planned), shown only when there were any.
        let outside = recorder.counterSeries(MetricName.callsStartedByOutside)
        let outsideSeries: [SVGLineChart.Series] = outside.isEmpty ? [] : [
            .init(name: "started by outside parties", color: "#9334e6", points: filled(outside)),
        ]
        return timeChart("calls per second", yLabel: "calls/s", series: outsideSeries + [
            .init(name: "planned", color: "#5f6368", points: filled(recorder.counterSeries(MetricName.callsPlanned)),
                  dashed: true),
            .init(name: "started", color: "#1a73e8", points: filled(recorder.counterSeries(Self.startedCounter))),
            .init(name: "ended", color: "#1e8e3e", points: filled(ended.sorted { $0.second < $1.second })),
            .init(name: "dropped (no idle device)", color: "#d93025",
                  points: filled(recorder.counterSeries(MetricName.callsDroppedNoIdleDevice))),
        ], id: "calls-timeline")
    }

    func populationChart() -> String {
        var cumulative: Int64 = 0
        let registered = filled(recorder.counterSeries(MetricName.devicesRegistered)).map { point -> SVGLineChart.Point in
            cumulative += Int64(point.y)
            return .init(x: point.x, y: Double(cumulative))
        }
        let active = recorder.gaugeSeries(MetricName.conversationsActive).map { SVGLineChart.Point(x: Double($0.second), y: $0.value) }
        return timeChart("active conversations and registered devices", yLabel: "count", series: [
            .init(name: MetricName.conversationsActive, color: "#1a73e8", points: active),
            .init(name: MetricName.devicesRegistered, color: "#1e8e3e", points: registered),
        ], id: "population")
    }

    func errorsChart() -> String {
        let names = recorder.counterNames.filter { $0.hasPrefix(MetricName.errorsPrefix) }
        let series = names.enumerated().map { index, name in
            SVGLineChart.Series(name: String(name.dropFirst(MetricName.errorsPrefix.count)),
                                color: Self.palette[index % Self.palette.count],
                                points: filled(recorder.counterSeries(name)))
        }
        return timeChart("errors per second, by kind", yLabel: "errors/s", series: series, id: "errors",
                         empty: "no errors")
    }

    func deadlineMissChart() -> String {
        timeChart("push deadline misses per second", yLabel: "misses/s", series: [
            .init(name: MetricName.pushDeadlineMissed, color: "#d93025",
                  points: filled(recorder.counterSeries(MetricName.pushDeadlineMissed))),
        ], id: "deadline-misses", empty: "no deadline misses")
    }

    func schedulerLagChart() -> String {
        let stats = recorder.intervalStats(MetricName.schedulerLag)
        return timeChart("scheduler lag per second (planned → actual)", yLabel: "ms", series: [
            .init(name: "p50", color: "#1a73e8", points: latencyPoints(stats, \.p50), maximumGap: 1),
            .init(name: "p99", color: "#d93025", points: latencyPoints(stats, \.p99), maximumGap: 1),
            .init(name: "max", color: "#5f6368", points: latencyPoints(stats, \.max), dashed: true, maximumGap: 1),
        ], id: "scheduler-lag")
    }

    func harnessChart() -> String {
        func gauge(_ name: String) -> [SVGLineChart.Point] {
            recorder.gaugeSeries(name).map { .init(x: Double($0.second), y: $0.value) }
        }
        return timeChart("harness RSS (MiB) and CPU (% of one core)", yLabel: "MiB / %", series: [
            .init(name: "rss MiB", color: "#9334e6", points: gauge(MetricName.harnessRSSMiB)),
            .init(name: "cpu %", color: "#12b5cb", points: gauge(MetricName.harnessCPUPercent)),
        ], id: "harness-rss", empty: "no harness samples")
    }

    /// Open file descriptors and threads of the callstorm process: flat after warm-up, or something leaks.
    func harnessResourcesChart() -> String {
        func gauge(_ name: String) -> [SVGLineChart.Point] {
            recorder.gaugeSeries(name).map { .init(x: Double($0.second), y: $0.value) }
        }
        return timeChart("harness open file descriptors and threads", yLabel: "count", series: [
            .init(name: "fds", color: "#e8710a", points: gauge(MetricName.harnessFDs)),
            .init(name: "threads", color: "#1e8e3e", points: gauge(MetricName.harnessThreads)),
        ], id: "harness-fds", empty: "no harness samples")
    }

    func distributionChart() -> String {
        var names = [Self.pushMetric, MetricName.pushDelivery, MetricName.dialToRing]
        names += actionKinds.map(MetricName.fulfillment)
        let histograms = recorder.histograms
        let series = names.filter { histograms[$0].map { !$0.isEmpty } ?? false }.enumerated().map { index, name in
            SVGLineChart.Series(name: name, color: Self.palette[index % Self.palette.count],
                                points: histograms[name]!.percentileDistribution().map {
                                    .init(x: $0.percentile, y: Double($0.value) / 1_000)
                                })
        }
        let peak = series.flatMap(\.points).map(\.y).max() ?? 0
        let onScale = peak * 10_000 >= Double(facts.pushDeadlineMicros)
        return SVGLineChart(title: "percentile distribution (log axis)"
                                + (onScale ? "" : " — push deadline off scale"),
                            xAxis: .percentile(label: "percentile"),
                            yLabel: "ms", series: series, referenceLine: onScale ? deadlineLine : nil, height: 360)
            .svg(id: "distribution")
    }
}
