import Foundation
import TextEscaping

/// One injected fault, as a row of faults.csv: when (since the load began), which window, what kind, what it hit
/// (`dev-7`, `conn-3`, `proxy`, `pid-42`), the planned call and role it hit (-1 when none) and its number (a push
/// or connection number). Window names are the scenario's own text, so every text field is escaped as `CSVText`
/// says: a window named `drops, "the bad ones"` stays one field.
public struct FaultRow: Sendable, Equatable {
    public var sinceLoadNanos: UInt64
    public var window: String
    public var kind: String
    public var subject: String
    public var call: Int
    public var role: Int
    public var seq: UInt64

    public init(sinceLoadNanos: UInt64, window: String, kind: String, subject: String, call: Int = -1,
                role: Int = -1, seq: UInt64 = 0) {
        self.sinceLoadNanos = sinceLoadNanos
        self.window = window
        self.kind = kind
        self.subject = subject
        self.call = call
        self.role = role
        self.seq = seq
    }

    /// The columns of faults.csv, in order.
    public enum Column: String, Sendable, CaseIterable {
        case time = "t_s", window, kind, subject, call, role, seq
    }

    public static let header = Column.allCases.map(\.rawValue).joined(separator: ",")

    /// The subject of a fault that hit a device: `dev-4`.
    public static func deviceSubject(_ device: Int) -> String { deviceSubjectPrefix + String(device) }
    public static let deviceSubjectPrefix = "dev-"

    /// The device the fault hit (`dev-7`), nil when its subject is not a device. A note after the id is not part of
    /// it: a clock skew's subject is `dev-7(+120ms)`.
    public var device: String? {
        guard subject.hasPrefix(Self.deviceSubjectPrefix) else { return nil }
        return String(subject.prefix { $0 != "(" })
    }

    /// The planned call the fault hit, nil when it hit none.
    public var plannedCall: Int? { call >= 0 ? call : nil }

    /// The row appended to `out` (without its line break). The time is rounded to the microsecond as `%.6f`
    /// rounds, as faults.csv always wrote it.
    public func appendCSV(to out: inout [UInt8]) {
        out.append(contentsOf: String(format: "%.6f", Double(sinceLoadNanos) / 1e9).utf8)
        for text in [window, kind, subject] {
            out.append(UInt8(ascii: ","))
            CSVText.appendField(text, to: &out)
        }
        for number in [String(call), String(role), String(seq)] {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: number.utf8)
        }
    }

    /// The whole file: the header, then `rows` one a line, in the order given.
    public static func csv(_ rows: [FaultRow]) -> String {
        var out = Array((header + "\n").utf8)
        for row in rows {
            row.appendCSV(to: &out)
            out.append(10)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The rows of a faults.csv (header first), in file order; cut or malformed rows are left out. Times come back
    /// to the microsecond.
    public static func rows(fromCSV text: String) -> [FaultRow] {
        guard let table = CSVRecords.named(CSVRecords.parse(text)) else { return [] }
        return table.rows.compactMap { f in
            func c(_ column: Column) -> String? { f[column.rawValue] }
            guard let nanos = c(.time).flatMap(RunFileTime.nanos(seconds:)), let window = c(.window),
                  let kind = c(.kind), let subject = c(.subject), let call = c(.call).flatMap({ Int($0) }),
                  let role = c(.role).flatMap({ Int($0) }), let seq = c(.seq).flatMap({ UInt64($0) }) else {
                return nil
            }
            return FaultRow(sinceLoadNanos: nanos, window: window, kind: kind, subject: subject, call: call,
                            role: role, seq: seq)
        }
    }
}
