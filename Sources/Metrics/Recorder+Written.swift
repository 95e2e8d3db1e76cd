#if canImport(Glibc)
import Glibc
#endif

/// Reads back the JSON `RecorderImage.appendJSON` writes, byte by byte. A worker's segments (one a second) are read
/// again when it closes; through `JSONDecoder`, which boxes every integer of every sparse histogram, that cost
/// ~8 M instructions per second of run (docs/SIP.md, "What a call costs"). Anything but the exact shape the writer
/// produces (whitespace, escapes, another key order, a value the Codable reading refuses) gives nil, and the caller
/// decodes with `JSONDecoder` as before: same recorder, same errors.
extension Recorder {
    /// The recorder `bytes` holds, exactly as `appendJSON` wrote it; nil for anything else.
    public static func readWritten(_ bytes: UnsafeBufferPointer<UInt8>) -> Recorder? {
        var r = WrittenJSON(b: bytes)
        guard let recorder = r.recorder(), r.i == bytes.count else { return nil }
        return recorder
    }
}

/// A cursor over bytes in `appendJSON`'s shape. Every reader returns nil (or false) at the first surprise.
struct WrittenJSON {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    /// One memcmp: the byte loop over the StaticString was ~230 instructions a key of a histogram, eight keys
    /// per histogram, a histogram per metric per second in every segment read back at a worker's close.
    mutating func literal(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard i + n <= b.count, let base = b.baseAddress, memcmp(base + i, text.utf8Start, n) == 0 else {
            return false
        }
        i += n
        return true
    }

    /// An integer as `JSONText.appendInteger` writes it, of at most 18 digits (all fit an Int64) after an
    /// optional minus; nil for a longer one (19 digits, rare), so the caller reads the file with `JSONDecoder`.
    mutating func int() -> Int64? {
        let negative = i < b.count && b[i] == 0x2D
        if negative { i += 1 }
        var value: Int64 = 0
        let start = i
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 18 {
            value = value * 10 + Int64(b[i] - 0x30)
            i += 1
        }
        guard i > start, i == b.count || b[i] < 0x30 || b[i] > 0x39 else { return nil }
        return negative ? -value : value
    }

    /// A string without escapes (metric names): nil at a backslash, which `JSONDecoder` then reads.
    mutating func string() -> String? {
        guard literal("\"") else { return nil }
        let start = i
        while i < b.count, b[i] != 0x22 {
            guard b[i] != 0x5C, b[i] >= 0x20 else { return nil }
            i += 1
        }
        guard i < b.count else { return nil }
        defer { i += 1 }
        let text = UnsafeBufferPointer(rebasing: b[start..<i])
        // ASCII (every metric name written so far) is valid UTF-8: decoded without `String(validating:)`'s
        // unspecialised walk, ~1,000 instructions a key; anything else is validated as before.
        if !text.contains(where: { $0 >= 0x80 }) { return String(decoding: text, as: UTF8.self) }
        return String(validating: text, as: UTF8.self)
    }

    /// A gauge value as `Double.description` writes it.
    mutating func double() -> Double? {
        let start = i
        while i < b.count, b[i] == 0x2B || b[i] == 0x2D || b[i] == 0x2E || b[i] == 0x65 || b[i] == 0x45
            || (b[i] >= 0x30 && b[i] <= 0x39) { i += 1 }
        guard i > start else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self))
    }

    /// `{"key":value,…}`; `value` reads one value for its key.
    mutating func object(_ value: (inout WrittenJSON, String) -> Bool) -> Bool {
        guard literal("{") else { return false }
        if literal("}") { return true }
        while true {
            guard let key = string(), literal(":"), value(&self, key) else { return false }
            if literal("}") { return true }
            guard literal(",") else { return false }
        }
    }

    /// An object keyed by seconds (integer keys written as strings), each key's digits read where they stand: a
    /// `String` per key and `Int(_:)` of it was most of a segment's reading.
    mutating func seconds<V>(_ value: (inout WrittenJSON) -> V?) -> [Int: V]? {
        var out: [Int: V] = [:]
        guard literal("{") else { return nil }
        if literal("}") { return out }
        while true {
            guard literal("\""), let second = int(), literal("\""), literal(":"),
                  let v = value(&self) else { return nil }
            // A second twice (never written so; a hand-edited file) is left to JSONDecoder's rule.
            guard out.updateValue(v, forKey: Int(second)) == nil else { return nil }
            if literal("}") { return out }
            guard literal(",") else { return nil }
        }
    }

    mutating func ints() -> [Int64]? {
        guard literal("[") else { return nil }
        var out: [Int64] = []
        if literal("]") { return out }
        // Room for every element up to the closing bracket (its commas counted), so the array grows once.
        var commas = 0, j = i
        while j < b.count, b[j] != 0x5D {
            if b[j] == 0x2C { commas += 1 }
            j += 1
        }
        out.reserveCapacity(commas + 1)
        while true {
            guard let v = int() else { return nil }
            out.append(v)
            if literal("]") { return out }
            guard literal(",") else { return nil }
        }
    }

    /// `JSONBytes.histogram`'s keys in its order, checked as `SparseHistogram.init(from:)` checks them.
    mutating func histogram() -> SparseHistogram? {
        guard literal("{\"lowestDiscernibleValue\":"), let lowest = int(),
              literal(",\"highestTrackableValue\":"), let highest = int(),
              literal(",\"significantDigits\":"), let digits = int(),
              HdrLayout.validationProblem(lowest: lowest, highest: highest, significantDigits: Int(digits)) == nil,
              literal(",\"indices\":"), let wide = ints(), literal(",\"counts\":"), let counts = ints(),
              literal(",\"totalCount\":"), let total = int(), literal(",\"overflowCount\":"), let overflow = int(),
              literal(",\"min\":"), let min = int(), literal(",\"max\":"), let max = int(), literal("}")
        else { return nil }
        var indices: [Int32] = []
        indices.reserveCapacity(wide.count)
        for v in wide {
            guard let index = Int32(exactly: v) else { return nil }
            indices.append(index)
        }
        let layout = HdrLayout(lowest: lowest, highest: highest, significantDigits: Int(digits))
        guard SparseHistogram.problem(layout: layout, indices: indices, counts: counts, total: total,
                                      overflow: overflow, min: min, max: max) == nil else { return nil }
        return SparseHistogram(layout: layout, indices: indices, counts: counts, totalCount: total,
                               overflowCount: overflow, min: min, max: max)
    }
}

extension WrittenJSON {
    /// `appendJSON`'s top-level keys in its order, put together as `Recorder.init(from:)` does.
    mutating func recorder() -> Recorder? {
        guard literal("{\"runStartNanos\":"), let start = int().flatMap(UInt64.init(exactly:)),
              literal(",\"lowestDiscernibleValue\":"), let lowest = int(),
              literal(",\"highestTrackableValue\":"), let highest = int(),
              literal(",\"significantDigits\":"), let digits = int(),
              HdrLayout.validationProblem(lowest: lowest, highest: highest, significantDigits: Int(digits)) == nil
        else { return nil }
        var totals: [String: SparseHistogram] = [:]
        var intervals: [String: [Int: SparseHistogram]] = [:]
        var counters: [String: Int64] = [:]
        var series: [String: [Int: Int64]] = [:]
        var gauges: [String: [Int: Double]] = [:]
        // Each name once: one written twice (never by appendJSON; a hand-edited file) is left to JSONDecoder's rule.
        guard literal(",\"histograms\":"), object({ r, key in
                  r.histogram().map { totals.updateValue($0, forKey: key) == nil } ?? false
              }),
              literal(",\"intervals\":"), object({ r, key in
                  r.seconds { $0.histogram() }.map { intervals.updateValue($0, forKey: key) == nil } ?? false
              }),
              literal(",\"counters\":"), object({ r, key in
                  r.int().map { counters.updateValue($0, forKey: key) == nil } ?? false
              }),
              literal(",\"counterSeries\":"), object({ r, key in
                  r.seconds { $0.int() }.map { series.updateValue($0, forKey: key) == nil } ?? false
              }),
              literal(",\"gauges\":"), object({ r, key in
                  r.seconds { $0.double() }.map { gauges.updateValue($0, forKey: key) == nil } ?? false
              }),
              literal("}")
        else { return nil }
        var recorder = Recorder(runStartNanos: start, lowestDiscernibleValue: lowest, highestTrackableValue: highest,
                                significantDigits: Int(digits))
        guard recorder.assemble(totals: totals, intervals: intervals) == nil else { return nil }
        recorder.assemble(counters: counters, series: series)
        recorder.gauges = gauges
        return recorder
    }
}
