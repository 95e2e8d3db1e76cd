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

    func rendered() -> String {
        var text = header.map(Self.escape).joined(separator: ",") + "\n"
        for row in rows {
            text += row.map(Self.escape).joined(separator: ",") + "\n"
        }
        return text
    }
}
