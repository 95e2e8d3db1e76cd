import TextEscaping

// MARK: - The checkpoint's JSON, written by hand

/// The same JSON `JSONEncoder` makes of a `RecorderImage` (same keys, read back by `Recorder(from:)`), written
/// straight into bytes. Every worker writes one snapshot a second and a segment with it; through `JSONEncoder`
/// that was ~6 % of the vs-locust client's CPU (its boxing of every integer of every sparse histogram).
extension RecorderImage {
    /// Appends the image as one JSON object; false (and `out` unchanged) when a gauge holds a value JSON cannot
    /// carry (infinity, NaN), for which the caller keeps `JSONEncoder`'s behaviour.
    public func appendJSON(to out: inout [UInt8]) -> Bool {
        for series in gauges.values where series.values.contains(where: { !$0.isFinite }) { return false }
        // The buffer moves into the writer and back, so appending never copies what is already in it.
        var w = JSONBytes(out: [])
        swap(&w.out, &out)
        w.raw("{\"runStartNanos\":"); w.int(runStartNanos)
        w.raw(",\"lowestDiscernibleValue\":"); w.int(lowestDiscernibleValue)
        w.raw(",\"highestTrackableValue\":"); w.int(highestTrackableValue)
        w.raw(",\"significantDigits\":"); w.int(significantDigits)
        w.raw(",\"histograms\":"); w.object(histograms) { w, h in w.histogram(h) }
        w.raw(",\"intervals\":")
        w.object(intervals) { w, seconds in w.object(seconds) { w, h in w.histogram(h) } }
        w.raw(",\"counters\":"); w.object(counters) { w, v in w.int(v) }
        w.raw(",\"counterSeries\":"); w.object(counterSeries) { w, s in w.object(s) { w, v in w.int(v) } }
        w.raw(",\"gauges\":"); w.object(gauges) { w, s in w.object(s) { w, v in w.raw(v.description) } }
        w.raw("}")
        out = w.out
        return true
    }
}

/// A byte buffer with the few JSON shapes a recorder image needs.
struct JSONBytes {
    var out: [UInt8]

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) { out.append(contentsOf: text.utf8) }

    /// Digits written straight into the buffer: a checkpoint is mostly the integers of sparse histograms, and
    /// `String(value)` per integer was most of its cost.
    mutating func int<T: BinaryInteger>(_ value: T) {
        guard let v = Int64(exactly: value) else { return out.append(contentsOf: String(value).utf8) }
        JSONText.appendInteger(v, to: &out)
    }

    /// Through the project's one JSON escaper.
    mutating func string(_ value: String) { JSONText.appendQuoted(value, to: &out) }

    /// A dictionary keyed by metric names as a JSON object.
    mutating func object<Value>(_ dictionary: [String: Value], _ value: (inout JSONBytes, Value) -> Void) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, element) in dictionary {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            string(key)
            out.append(UInt8(ascii: ":"))
            value(&self, element)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A dictionary keyed by seconds as a JSON object; integer keys become strings, as `JSONEncoder` writes them.
    /// Its own overload: a generic key cast to `Int` per key (`as?`) was a dynamic cast for every second of every
    /// metric of every checkpoint.
    mutating func object<Value>(_ dictionary: [Int: Value], _ value: (inout JSONBytes, Value) -> Void) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, element) in dictionary {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            JSONText.appendInteger(Int64(key), to: &out)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            value(&self, element)
        }
        out.append(UInt8(ascii: "}"))
    }
}
