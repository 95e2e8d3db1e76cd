import Foundation
import TextEscaping

/// A CSV document with RFC 4180 quoting: fields holding a comma, a double quote, CR or LF are quoted and their
/// quotes doubled. Lines end in LF rather than RFC 4180's CRLF because the files are read by Unix tools and
/// spreadsheets alike, and every common CSV reader accepts LF.
struct CSVTable {
    let header: [String]
    private(set) var rows: [[String]] = []

    init(header: [String]) {
        self.header = header
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == header.count, "CSV row has \(row.count) fields, header has \(header.count)")
        rows.append(row)
    }

    static func escape(_ field: String) -> String { CSVText.field(field) }

    /// Written as bytes into one buffer: a `joined` string per row cost ~4 k instructions a row, and
    /// timeseries.csv has a row per metric and second (~75 k per SIP call of the instructions bench).
    func rendered() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64 * (rows.count + 1))
        Self.appendRow(header, to: &out)
        for row in rows { Self.appendRow(row, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendRow(_ row: [String], to out: inout [UInt8]) {
        for (i, field) in row.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            CSVText.appendField(field, to: &out)
        }
        out.append(10)
    }
}
