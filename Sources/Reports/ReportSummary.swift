import Foundation
import Metrics

/// The content of summary.json: the machine-readable result that CI keeps and `callstorm compare` reads back.
/// Changing a field's meaning requires a new `schema` string; adding an optional field does not (readers of an
/// older file see it as absent). docs/REPORTS.md documents every field.
public struct ReportSummary: Sendable, Codable, Equatable {
    public static let currentSchema = "callstorm.summary/1"

    /// Latency figures of one metric, in milliseconds.
    public struct MetricSummary: Sendable, Codable, Equatable {
        public var count: Int64
        public var min: Double
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p999: Double
        public var max: Double
        public var mean: Double
        public var unit: String

        /// `figures`: the histogram's `figures(atPercentiles: [50, 90, 99, 99.9])` when the caller read them.
        public init(_ histogram: HdrHistogram, figures known: HistogramFigures? = nil) {
            count = histogram.totalCount
            min = ReportFormat.jsonMillis(histogram.min)
            // One walk of the slots for the four percentiles and the mean (`figures(atPercentiles:)`).
            let figures = known ?? histogram.figures(atPercentiles: ReportWriter.percentiles)
            p50 = ReportFormat.jsonMillis(figures.values[0])
            p90 = ReportFormat.jsonMillis(figures.values[1])
            p99 = ReportFormat.jsonMillis(figures.values[2])
            p999 = ReportFormat.jsonMillis(figures.values[3])
            max = ReportFormat.jsonMillis(histogram.max)
            mean = ReportFormat.jsonMillis(ReportFormat.roundedMicros(figures.mean))
            unit = "ms"
        }
    }

    /// Last and peak value of a gauge over the run.
    public struct GaugeSummary: Sendable, Codable, Equatable {
        public var last: Double
        public var max: Double
        public var seconds: Int
    }

    public var schema: String
    public var facts: RunFacts
    public var verdict: Verdict
    /// Every latency metric, including flow-step metrics named `<kind>.fulfillment@<flow>/<step>`.
    public var metrics: [String: MetricSummary]
    public var counters: [String: Int64]
    public var notes: [String]
    /// Each threshold with its measured value (absent in files from before thresholds existed).
    public var thresholds: [ThresholdResult]?
    /// deadline_miss_rate, errors.rate and delivered_rate_ratio as fractions; a ratio with no data is absent.
    public var ratios: RunRatios?
    public var gauges: [String: GaugeSummary]?
    /// actions.csv and pushes.csv keep one row in this many (every metric and counter counts all of them).
    public var rowSampleEvery: Int?
    /// The knee analysis of a `capacity:` scenario (windows, knee calls/s, the first window that broke).
    public var capacity: CapacityResult?
    /// Where callstorm saturated (its own scheduler lag passed the `harness:` limit); absent when it kept up.
    public var harness: HarnessSaturation?
    /// Every action and push accounted for (`Books`); absent in files from before the books existed.
    public var books: Books?
    /// The redial storm's figures (`behavior.redial_after_drop`); absent when the run redialled nothing.
    public var storm: StormFigures?
    /// The media figures (`media:`, docs/MEDIA.md); absent when the run opened no media stream.
    public var media: MediaFigures?

    /// `figures`: each histogram's `figures(atPercentiles:)` of `ReportWriter.percentiles`, when already read.
    public init(_ result: RunResult, figures: [String: HistogramFigures] = [:]) {
        schema = Self.currentSchema
        facts = result.facts
        verdict = result.verdict
        var metrics: [String: MetricSummary] = [:]
        for (name, histogram) in result.histograms { metrics[name] = MetricSummary(histogram, figures: figures[name]) }
        self.metrics = metrics
        counters = result.recorder.counters
        notes = result.notes
        thresholds = result.thresholds
        ratios = result.ratios
        var gauges: [String: GaugeSummary] = [:]
        for name in result.recorder.gaugeNames {
            let series = result.recorder.gaugeSeries(name)
            guard let last = series.last else { continue }
            gauges[name] = GaugeSummary(last: last.value, max: series.map(\.value).max() ?? last.value,
                                        seconds: series.count)
        }
        self.gauges = gauges
        rowSampleEvery = result.facts.rowSampleEvery ?? 1
        capacity = result.capacity
        harness = result.harness
        books = result.books
        storm = StormFigures(result)
        media = MediaFigures(result)
    }

    /// Sorted keys and ISO 8601 dates, so two summaries of the same run are byte-identical and diff cleanly.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        do {
            var data = try encoder.encode(self)
            data.append(UInt8(ascii: "\n"))
            return data
        } catch {
            throw ReportError.cannotEncodeSummary(reason: String(describing: error))
        }
    }

    /// Reads a summary.json written by `encoded()`.
    public static func decode(from data: Data) throws -> ReportSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ReportSummary.self, from: data)
    }
}
