import Foundation
import Metrics
import Results
import TextEscaping

/// Writes a run's results bundle: report.html, summary.csv, counters.csv, timeseries.csv, summary.json,
/// junit.xml and one HdrHistogram interval log per latency metric under hlog/.
///
/// Every file is written whole and atomically (`RunResults.replaceFile`), so an interrupted run leaves either the
/// old file or the new one; an empty recorder still produces every file, with headers and "no samples" charts.
public enum ReportWriter {
    // The names are the run directory's layout, which `RunBundle` owns.
    public static let htmlFileName = RunBundle.reportHTMLFileName
    public static let summaryCSVFileName = RunBundle.summaryCSVFileName
    public static let countersCSVFileName = RunBundle.countersCSVFileName
    public static let timeseriesCSVFileName = RunBundle.timeseriesCSVFileName
    public static let summaryJSONFileName = RunBundle.summaryJSONFileName
    public static let junitFileName = RunBundle.junitFileName

    /// Writes all files into `directory`, creating it (and its parents) if needed.
    @discardableResult
    public static func write(_ result: RunResult, to directory: URL) throws -> ReportFiles {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotCreateDirectory(path: directory.path, reason: error.localizedDescription)
        }
        let files = ReportFiles(
            html: directory.appendingPathComponent(htmlFileName),
            summaryCSV: directory.appendingPathComponent(summaryCSVFileName),
            countersCSV: directory.appendingPathComponent(countersCSVFileName),
            timeseriesCSV: directory.appendingPathComponent(timeseriesCSVFileName),
            summaryJSON: directory.appendingPathComponent(summaryJSONFileName),
            junit: directory.appendingPathComponent(junitFileName),
            hlogDirectory: directory.appendingPathComponent(HdrLog.directoryName, isDirectory: true)
        )
        do {
            try FileManager.default.createDirectory(at: files.hlogDirectory, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotCreateDirectory(path: files.hlogDirectory.path, reason: error.localizedDescription)
        }
        let deflater = HdrDeflater()
        for (metric, intervals) in result.recorder.intervals {
            let text = HdrLog.text(metric: metric, intervals: intervals, startedAt: result.facts.startedAt,
                                   deflater: deflater)
            try save(Data(text.utf8), to: files.hlogDirectory.appendingPathComponent(HdrLog.fileName(metric: metric)))
        }
        try save(Data(JUnitReport.render(result).utf8), to: files.junit)
        // Each histogram's percentiles and mean read once for summary.csv, summary.json and report.html.
        let histograms = result.histograms
        let figures = histograms.mapValues { $0.figures(atPercentiles: percentiles) }
        let csv = summaryCSV(histograms, storm: StormFigures(result), media: MediaFigures(result), figures: figures)
        try save(Data(csv.utf8), to: files.summaryCSV)
        try save(Data(countersCSV(result.recorder).utf8), to: files.countersCSV)
        try save(Data(timeseriesCSV(result.recorder).utf8), to: files.timeseriesCSV)
        try save(try ReportSummary(result, figures: figures).encoded(), to: files.summaryJSON)
        try save(Data(HTMLReport(result, figures: figures).render().utf8), to: files.html)
        return files
    }

    private static func save(_ data: Data, to url: URL) throws {
        do {
            try RunResults.replaceFile(url, with: data)
        } catch {
            throw ReportError.cannotWriteFile(path: url.path, reason: error.localizedDescription)
        }
    }

    // MARK: - CSV documents

    static let summaryHeader = ["metric", "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "unit"]
    static let countersHeader = ["counter", "value"]
    static let timeseriesHeader = ["second", "metric", "count", "p50", "p90", "p99", "max", "value"]

    /// One row per latency metric (flow-step metrics included), sorted by name, in milliseconds; then a redial
    /// storm's rows (`StormFigures.csvRows`) and the media rows (`MediaFigures.csvRows`).
    /// The percentiles summary.csv, summary.json and report.html's tables show, in their columns' order.
    static let percentiles: [Double] = [50, 90, 99, 99.9]

    /// `figures` holds each histogram's `figures(atPercentiles: percentiles)` when the caller read them already.
    static func summaryCSV(_ histograms: [String: HdrHistogram], storm: StormFigures? = nil,
                           media: MediaFigures? = nil, figures known: [String: HistogramFigures] = [:]) -> String {
        var table = CSVTable(header: summaryHeader)
        for (name, histogram) in histograms.sorted(by: { $0.key < $1.key }) {
            let figures = known[name] ?? histogram.figures(atPercentiles: percentiles)
            table.append([
                name,
                String(histogram.totalCount),
                ReportFormat.millis(histogram.min),
                ReportFormat.millis(figures.values[0]),
                ReportFormat.millis(figures.values[1]),
                ReportFormat.millis(figures.values[2]),
                ReportFormat.millis(figures.values[3]),
                ReportFormat.millis(histogram.max),
                ReportFormat.millis(mean: figures.mean),
                "ms",
            ])
        }
        for row in storm?.csvRows() ?? [] { table.append(row) }
        for row in media?.csvRows(histograms) ?? [] { table.append(row) }
        return table.rendered()
    }

    static func countersCSV(_ recorder: Recorder) -> String {
        var table = CSVTable(header: countersHeader)
        for (name, value) in recorder.counters.sorted(by: { $0.key < $1.key }) {
            table.append([name, String(value)])
        }
        return table.rendered()
    }

    /// Rows sorted by second; within a second, latency metrics, then counters, then gauges, each by name.
    /// Latency rows fill count…max (ms); counter and gauge rows fill only `value`.
    static func timeseriesCSV(_ recorder: Recorder) -> String {
        // Each second's rows as bytes, in the order the metrics, counters and gauges come: a `[String]` per row (and
        // five `String`s per figure from `ReportFormat.millis`) cost most of the file's ~2 k instructions a row.
        var rowsBySecond: [Int: [UInt8]] = [:]
        for name in recorder.metricNames {
            for stat in recorder.intervalStats(name) {
                rowsBySecond[stat.second, default: []].appendTimeseriesRow(stat.second, name) { out in
                    JSONText.appendInteger(stat.count, to: &out)
                    out.append(comma); ReportFormat.appendMillis(stat.p50, to: &out)
                    out.append(comma); ReportFormat.appendMillis(stat.p90, to: &out)
                    out.append(comma); ReportFormat.appendMillis(stat.p99, to: &out)
                    out.append(comma); ReportFormat.appendMillis(stat.max, to: &out)
                    out.append(comma)
                }
            }
        }
        for name in recorder.counterNames {
            for entry in recorder.counterSeries(name) {
                rowsBySecond[entry.second, default: []].appendTimeseriesRow(entry.second, name) { out in
                    out.append(contentsOf: ",,,,,".utf8)
                    JSONText.appendInteger(Int64(entry.value), to: &out)
                }
            }
        }
        for name in recorder.gaugeNames {
            for entry in recorder.gaugeSeries(name) {
                rowsBySecond[entry.second, default: []].appendTimeseriesRow(entry.second, name) { out in
                    out.append(contentsOf: ",,,,,".utf8)
                    CSVText.appendField(ReportFormat.number(entry.value), to: &out)
                }
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(rowsBySecond.values.reduce(64) { $0 + $1.count })
        for (i, field) in timeseriesHeader.enumerated() {
            if i > 0 { out.append(comma) }
            CSVText.appendField(field, to: &out)
        }
        out.append(10)
        for second in rowsBySecond.keys.sorted() { out.append(contentsOf: rowsBySecond[second]!) }
        return String(decoding: out, as: UTF8.self)
    }
}

private let comma = UInt8(ascii: ",")

private extension Array where Element == UInt8 {
    /// One timeseries.csv row: `second,name,` then what `rest` appends (the other six fields), then the newline.
    mutating func appendTimeseriesRow(_ second: Int, _ name: String, _ rest: (inout [UInt8]) -> Void) {
        JSONText.appendInteger(Int64(second), to: &self)
        append(comma)
        CSVText.appendField(name, to: &self)
        append(comma)
        rest(&self)
        append(10)
    }
}
