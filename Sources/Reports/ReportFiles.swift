import Foundation

/// Where `ReportWriter` put each file, so the CLI can print them and tests can open them.
public struct ReportFiles: Sendable, Equatable {
    public var html: URL
    public var summaryCSV: URL
    public var countersCSV: URL
    public var timeseriesCSV: URL
    public var summaryJSON: URL
    public var junit: URL
    /// One `<metric>.hlog` per latency metric.
    public var hlogDirectory: URL

    public var all: [URL] { [html, summaryCSV, countersCSV, timeseriesCSV, summaryJSON, junit] }
}
