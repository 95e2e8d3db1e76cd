import TextEscaping

/// Reads what `CSVText` writes (RFC 4180): a field in double quotes may hold commas, doubled quotes and line
/// breaks, so records are found by walking the bytes, never by splitting lines or commas.
public enum CSVRecords {
    /// The whole records of `text`, each as its fields. A record counts once its line break is written: a last
    /// record without one (a run killed mid-write) or with an unclosed quote is left out. Blank lines are skipped;
    /// a CR before a line break is dropped.
    public static func parse(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline = UInt8(10), cr = UInt8(13)
        var bytes = text.utf8.makeIterator()
        var pending: UInt8? = nil
        func endField() {
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        while let byte = pending ?? bytes.next() {
            pending = nil
            if quoted {
                guard byte == quote else {
                    field.append(byte)
                    continue
                }
                let next = bytes.next()
                if next == quote {
                    field.append(quote)
                } else {
                    quoted = false
                    pending = next
                }
                continue
            }
            switch byte {
            case quote where field.isEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case comma:
                endField()
            case newline:
                endField()
                if record != [""] { records.append(record) }
                record.removeAll(keepingCapacity: true)
            case cr:
                // CR LF ends a record as LF does; a CR alone is text.
                let next = bytes.next()
                if next != newline { field.append(cr) }
                pending = next
            default:
                field.append(byte)
            }
        }
        return records
    }

    /// `records` with the header's columns named: each record as column name → field, for readers that find
    /// columns by name (a column added later, or moved, does not shift them). Records whose field count is not
    /// the header's are left out. Nil when there is no header.
    public static func named(_ records: [[String]]) -> (header: [String], rows: [[String: String]])? {
        guard let header = records.first else { return nil }
        let rows = records.dropFirst().compactMap { fields -> [String: String]? in
            guard fields.count == header.count else { return nil }
            return Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first })
        }
        return (header, rows)
    }
}

/// Fixed-point times of the run files: seconds and milliseconds with microsecond precision, written and read by
/// integer arithmetic so no value is rounded on its way through a file.
public enum RunFileTime {
    /// Seconds with microsecond precision ("12.000345"); nanoseconds below a microsecond are cut.
    public static func appendSeconds(_ nanos: UInt64, to out: inout [UInt8]) {
        appendFixed(nanos / 1000, decimals: 6, to: &out)
    }

    /// Milliseconds with microsecond precision ("3.071").
    public static func appendMillis(_ nanos: UInt64, to out: inout [UInt8]) {
        appendFixed(nanos / 1000, decimals: 3, to: &out)
    }

    /// "12.000345" seconds → 12_000_345_000 ns; nil unless it is digits, at most one dot and at most nine
    /// decimals (negative times do not occur in run files).
    public static func nanos(seconds text: some StringProtocol) -> UInt64? {
        var whole: UInt64 = 0
        var fraction: UInt64 = 0
        var decimals = 0
        var digits = 0
        var afterDot = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), !afterDot {
                afterDot = true
                continue
            }
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = UInt64(byte - 0x30)
            if afterDot {
                guard decimals < 9 else { return nil }
                fraction = fraction * 10 + digit
                decimals += 1
            } else {
                let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(digit)
                if o1 || o2 { return nil }
                whole = sum
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        for _ in decimals..<9 { fraction *= 10 }
        let (scaled, o1) = whole.multipliedReportingOverflow(by: 1_000_000_000)
        let (value, o2) = scaled.addingReportingOverflow(fraction)
        return o1 || o2 ? nil : value
    }

    /// `micros` ÷ 10^decimals, written with exactly `decimals` digits after the point: built in scratch memory
    /// and appended once (`JSONLineWriter.fixed`; a digit appended at a time before).
    private static func appendFixed(_ micros: UInt64, decimals: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONLineWriter.fixedBound) { scratch in
            var w = JSONLineWriter(scratch)
            w.fixed(micros, decimals: decimals)
            w.append(to: &out)
        }
    }

}
