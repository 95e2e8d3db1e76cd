import Foundation
import Metrics
import Results

/// Percentiles and outcomes per flow step, rebuilt from actions.csv: for every row, its latency goes into
/// `<kind>.fulfillment@<step>` and its latency from the planned start into `<kind>.fulfillment_from_planned@<step>`.
///
/// Values are exact to the microsecond (the CSV's resolution, the same truncation the recorder uses). When the
/// run sampled actions.csv (`sampleEvery` > 1) the counts are of the sampled rows, and the report says so.
public struct StepMetrics: Sendable, Equatable {
    public var histograms: [String: HdrHistogram] = [:]
    /// Outcome counts per `<kind>@<step>`: fulfilled, failed, timed_out.
    public var outcomes: [String: [String: Int64]] = [:]
    /// One row in `sampleEvery` was kept in actions.csv.
    public var sampleEvery: Int = 1
    public var rows: Int = 0

    public init() {}

    /// Reads actions.csv; rows that are incomplete (a run killed mid-write) or malformed are skipped.
    ///
    /// Parsed on bytes: splitting every row into Strings and building three keys per row took ~2.5 % of a whole
    /// run's CPU in the Locust benchmark. Rows of the same kind, step and outcome share one entry, found by a hash
    /// of their bytes (and checked against them), so a row costs no allocation.
    public static func load(actionsCSV url: URL, sampleEvery: Int = 1) -> StepMetrics {
        var metrics = StepMetrics()
        metrics.sampleEvery = max(1, sampleEvery)
        guard let data = FileManager.default.contents(atPath: url.path) else { return metrics }
        let bytes = [UInt8](data)
        return bytes.withUnsafeBufferPointer { buffer in
            var loader = CSVLoader(buffer)
            loader.load(into: &metrics)
            return metrics
        }
    }

    public mutating func add(kind: String, step: String, outcome: String, latencyMicros: Int64,
                             fromPlannedMicros: Int64) {
        rows += 1
        histograms[MetricName.fulfillment(kind, step: step), default: HdrHistogram()].record(latencyMicros)
        histograms[MetricName.fulfillmentFromPlanned(kind, step: step), default: HdrHistogram()].record(fromPlannedMicros)
        outcomes["\(kind)@\(step)", default: [:]][outcome, default: 0] += 1
    }
}

/// The byte-level reader behind `StepMetrics.load`.
private struct CSVLoader {
    /// One (kind, step, outcome) seen in the file, with everything recorded for it.
    private struct Entry {
        var key: [UInt8]
        var kind: String
        var step: String
        var outcome: String
        var latency = HdrHistogram()
        var fromPlanned = HdrHistogram()
        var rows: Int64 = 0
    }

    private let buffer: UnsafeBufferPointer<UInt8>
    private var entries: [Entry] = []
    private var byHash: [UInt64: [Int]] = [:]
    private var fieldStarts: [Int] = []
    private var fieldEnds: [Int] = []

    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func load(into metrics: inout StepMetrics) {
        var end = buffer.count
        // A last line without its newline was cut by a kill.
        if end > 0, buffer[end - 1] != 10 { end = buffer.lastIndex(of: 10).map { $0 + 1 } ?? 0 }
        var lines: [Range<Int>] = []
        var pos = 0
        while pos < end {
            var stop = pos
            while stop < end, buffer[stop] != 10 { stop += 1 }
            if stop > pos { lines.append(pos..<stop) }
            pos = stop + 1
        }
        guard let headerLine = lines.first else { return }
        let header = String(decoding: UnsafeBufferPointer(rebasing: buffer[headerLine]), as: UTF8.self)
            .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: RunBundle.ActionColumn) -> Int? { header.firstIndex(of: name.rawValue) }
        guard let kind = column(.kind), let step = column(.step), let outcome = column(.outcome),
              let planned = column(.planned), let started = column(.started),
              let finished = column(.finished) else { return }
        for line in lines.dropFirst() {
            guard split(line, expecting: header.count),
                  let plannedMicros = micros(planned), let startedMicros = micros(started),
                  let finishedMicros = micros(finished),
                  fieldEnds[kind] > fieldStarts[kind], fieldEnds[step] > fieldStarts[step] else { continue }
            let index = entry(kind, step, outcome)
            entries[index].latency.record(finishedMicros - startedMicros)
            entries[index].fromPlanned.record(finishedMicros - plannedMicros)
            entries[index].rows += 1
        }
        for entry in entries {
            metrics.rows += Int(entry.rows)
            let fulfillment = MetricName.fulfillment(entry.kind, step: entry.step)
            let fromPlanned = MetricName.fulfillmentFromPlanned(entry.kind, step: entry.step)
            metrics.histograms[fulfillment, default: HdrHistogram()].add(entry.latency)
            metrics.histograms[fromPlanned, default: HdrHistogram()].add(entry.fromPlanned)
            metrics.outcomes["\(entry.kind)@\(entry.step)", default: [:]][entry.outcome, default: 0] += entry.rows
        }
    }

    /// The fields of `line` into `fieldStarts`/`fieldEnds`; false unless there are exactly `expecting`. A field in
    /// quotes (RFC 4180, as the journal writes text holding a comma or a quote) spans the bytes between them.
    private mutating func split(_ line: Range<Int>, expecting: Int) -> Bool {
        fieldStarts.removeAll(keepingCapacity: true)
        fieldEnds.removeAll(keepingCapacity: true)
        let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
        var i = line.lowerBound
        while fieldStarts.count < expecting {
            var end = i
            if i < line.upperBound, buffer[i] == quote {
                end = i + 1
                while end < line.upperBound {
                    guard buffer[end] == quote else { end += 1; continue }
                    guard end + 1 < line.upperBound, buffer[end + 1] == quote else { break }
                    end += 2  // a doubled quote stands for one
                }
                guard end < line.upperBound else { return false }  // no closing quote
                fieldStarts.append(i + 1)
                fieldEnds.append(end)
                end += 1
                guard end == line.upperBound || buffer[end] == comma else { return false }
            } else {
                while end < line.upperBound, buffer[end] != comma { end += 1 }
                fieldStarts.append(i)
                fieldEnds.append(end)
            }
            if end == line.upperBound { return fieldStarts.count == expecting }
            i = end + 1
        }
        return false
    }

    /// Field `column` as "12.345678" seconds → 12345678 µs, by integer arithmetic so no value is rounded; nil
    /// unless it is digits (optionally signed), at most one dot, and at most six decimals.
    private func micros(_ column: Int) -> Int64? {
        var i = fieldStarts[column]
        let end = fieldEnds[column]
        var negative = false
        if i < end, buffer[i] == 0x2D || buffer[i] == 0x2B {
            negative = buffer[i] == 0x2D
            i += 1
        }
        var whole: Int64 = 0
        var digits = 0
        while i < end, buffer[i] >= 0x30, buffer[i] <= 0x39 {
            let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(buffer[i] - 0x30))
            if o1 || o2 { return nil }
            whole = sum
            digits += 1
            i += 1
        }
        guard digits > 0 else { return nil }
        var fraction: Int64 = 0
        var decimals = 0
        if i < end {
            guard buffer[i] == 0x2E else { return nil }
            i += 1
            while i < end {
                guard buffer[i] >= 0x30, buffer[i] <= 0x39, decimals < 6 else { return nil }
                fraction = fraction * 10 + Int64(buffer[i] - 0x30)
                decimals += 1
                i += 1
            }
        }
        for _ in decimals..<6 { fraction *= 10 }
        let (scaled, o1) = (negative ? -whole : whole).multipliedReportingOverflow(by: 1_000_000)
        let (value, o2) = scaled.addingReportingOverflow(fraction)
        return o1 || o2 ? nil : value
    }

    /// The entry of this row's kind, step and outcome, added on first sight.
    private mutating func entry(_ kind: Int, _ step: Int, _ outcome: Int) -> Int {
        let columns = (kind, step, outcome)
        func column(_ n: Int) -> Int { n == 0 ? columns.0 : n == 1 ? columns.1 : columns.2 }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for n in 0..<3 {
            let column = column(n)
            for i in fieldStarts[column]..<fieldEnds[column] { hash = (hash ^ UInt64(buffer[i])) &* 0x100_0000_01B3 }
            hash = (hash ^ 0xFF) &* 0x100_0000_01B3
        }
        func matches(_ key: [UInt8]) -> Bool {
            var k = 0
            for n in 0..<3 {
                let column = column(n)
                for i in fieldStarts[column]..<fieldEnds[column] {
                    guard k < key.count, key[k] == buffer[i] else { return false }
                    k += 1
                }
                guard k < key.count, key[k] == 0xFF else { return false }
                k += 1
            }
            return k == key.count
        }
        if let candidates = byHash[hash], let found = candidates.first(where: { matches(entries[$0].key) }) {
            return found
        }
        func text(_ column: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: buffer[fieldStarts[column]..<fieldEnds[column]]),
                   as: UTF8.self)
        }
        var key: [UInt8] = []
        for n in 0..<3 {
            let column = column(n)
            key.append(contentsOf: buffer[fieldStarts[column]..<fieldEnds[column]])
            key.append(0xFF)
        }
        entries.append(Entry(key: key, kind: text(kind), step: text(step), outcome: text(outcome)))
        byHash[hash, default: []].append(entries.count - 1)
        return entries.count - 1
    }
}
