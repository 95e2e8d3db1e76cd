import TextEscaping

/// One finished action, as a row of actions.csv. Times are nanoseconds since the run's origin.
public struct ActionRow: Sendable, Equatable {
    public var id: UInt64
    public var kind: String
    /// The flow step that issued it (`incoming-1to1/answer`).
    public var step: String
    public var device: String
    public var conversation: String
    public var plannedNanos: UInt64
    public var startedNanos: UInt64
    public var finishedNanos: UInt64
    public var outcome: String
    public var reason: String

    public init(id: UInt64, kind: String, step: String, device: String, conversation: String, plannedNanos: UInt64,
                startedNanos: UInt64, finishedNanos: UInt64, outcome: String, reason: String) {
        self.id = id
        self.kind = kind
        self.step = step
        self.device = device
        self.conversation = conversation
        self.plannedNanos = plannedNanos
        self.startedNanos = startedNanos
        self.finishedNanos = finishedNanos
        self.outcome = outcome
        self.reason = reason
    }

    /// The columns of actions.csv, in order; readers find them by these names.
    public enum Column: String, Sendable, CaseIterable {
        case id, kind, step, device, conversation
        case planned = "planned_s", started = "started_s", finished = "finished_s"
        case outcome, reason
        case latency = "latency_ms"
    }

    public static let header = Column.allCases.map(\.rawValue).joined(separator: ",")

    /// The row appended to `out` as bytes (no String per row); text fields quoted as RFC 4180 says when they hold
    /// a comma, a quote or a line break (a foreign server's conversation id may).
    public func appendCSV(to out: inout [UInt8]) {
        Self.appendCSV(id: id, kind: kind, step: step, device: device, conversation: conversation,
                       plannedNanos: plannedNanos, startedNanos: startedNanos, finishedNanos: finishedNanos,
                       outcome: outcome, reason: reason, to: &out)
    }

    /// A row's bytes from its fields where they lie: the worker writes a row with no `ActionRow` made (making one
    /// retained its four texts and destroying it released them, per action, sampled or not; issue 33).
    public static func appendCSV(id: UInt64, kind: String, step: String, device: String, conversation: String,
                                 plannedNanos: UInt64, startedNanos: UInt64, finishedNanos: UInt64, outcome: String,
                                 reason: String, to out: inout [UInt8]) {
        // Built in scratch memory and appended once (`JSONLineWriter`): field by field into the array was
        // ~3,500 instructions a row.
        typealias W = JSONLineWriter
        let texts = W.csvBound(kind) + W.csvBound(step) + W.csvBound(device) + W.csvBound(conversation)
            + W.csvBound(outcome) + W.csvBound(reason)
        let capacity = 16 + W.integerBound + 4 * W.fixedBound + texts
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var w = W(scratch)
            w.integer(id)
            w.byte(comma); w.csvField(kind)
            w.byte(comma); w.csvField(step)
            w.byte(comma); w.csvField(device)
            w.byte(comma); w.csvField(conversation)
            w.byte(comma); w.fixed(plannedNanos / 1000, decimals: 6)
            w.byte(comma); w.fixed(startedNanos / 1000, decimals: 6)
            w.byte(comma); w.fixed(finishedNanos / 1000, decimals: 6)
            w.byte(comma); w.csvField(outcome)
            w.byte(comma); w.csvField(reason)
            w.byte(comma); w.fixed((finishedNanos &- startedNanos) / 1000, decimals: 3)
            w.append(to: &out)
        }
    }

    /// The rows of an actions.csv (header first); rows that are cut or malformed are left out. Times come back to
    /// the microsecond (the file's resolution).
    public static func rows(fromCSV text: String) -> [ActionRow] {
        guard let table = CSVRecords.named(CSVRecords.parse(text)) else { return [] }
        return table.rows.compactMap { f in
            func c(_ column: Column) -> String? { f[column.rawValue] }
            guard let id = c(.id).flatMap({ UInt64($0) }), let kind = c(.kind), let step = c(.step),
                  let device = c(.device), let conversation = c(.conversation),
                  let planned = c(.planned).flatMap(RunFileTime.nanos(seconds:)),
                  let started = c(.started).flatMap(RunFileTime.nanos(seconds:)),
                  let finished = c(.finished).flatMap(RunFileTime.nanos(seconds:)),
                  let outcome = c(.outcome), let reason = c(.reason) else { return nil }
            return ActionRow(id: id, kind: kind, step: step, device: device, conversation: conversation,
                             plannedNanos: planned, startedNanos: started, finishedNanos: finished, outcome: outcome,
                             reason: reason)
        }
    }
}

/// One push a device received, as a row of pushes.csv.
public struct PushRow: Sendable, Equatable {
    public var apnsID: String
    public var device: String
    public var pushType: String
    public var acceptedNanos: UInt64
    public var deliveredNanos: UInt64
    /// When the device reported the incoming conversation (VoIP pushes only).
    public var reportedNanos: UInt64?
    public var deadlineMissed: Bool

    public init(apnsID: String, device: String, pushType: String, acceptedNanos: UInt64, deliveredNanos: UInt64,
                reportedNanos: UInt64?, deadlineMissed: Bool) {
        self.apnsID = apnsID
        self.device = device
        self.pushType = pushType
        self.acceptedNanos = acceptedNanos
        self.deliveredNanos = deliveredNanos
        self.reportedNanos = reportedNanos
        self.deadlineMissed = deadlineMissed
    }

    /// The columns of pushes.csv, in order.
    public enum Column: String, Sendable, CaseIterable {
        case apnsID = "apns_id", device, type
        case accepted = "accepted_s", delivered = "delivered_s", reported = "reported_s"
        case pushToReport = "push_to_report_ms", deadlineMissed = "deadline_missed"
    }

    public static let header = Column.allCases.map(\.rawValue).joined(separator: ",")

    /// The row appended to `out` as bytes, text fields quoted where RFC 4180 needs it.
    public func appendCSV(to out: inout [UInt8]) {
        CSVText.appendField(apnsID, to: &out)
        out.append(comma); CSVText.appendField(device, to: &out)
        out.append(comma); CSVText.appendField(pushType, to: &out)
        out.append(comma); RunFileTime.appendSeconds(acceptedNanos, to: &out)
        out.append(comma); RunFileTime.appendSeconds(deliveredNanos, to: &out)
        out.append(comma); if let reportedNanos { RunFileTime.appendSeconds(reportedNanos, to: &out) }
        out.append(comma); if let reportedNanos { RunFileTime.appendMillis(reportedNanos &- acceptedNanos, to: &out) }
        out.append(comma); out.append(contentsOf: (deadlineMissed ? "true" : "false").utf8)
    }

    /// The rows of a pushes.csv (header first); rows that are cut or malformed are left out.
    public static func rows(fromCSV text: String) -> [PushRow] {
        guard let table = CSVRecords.named(CSVRecords.parse(text)) else { return [] }
        return table.rows.compactMap { f in
            func c(_ column: Column) -> String? { f[column.rawValue] }
            guard let apnsID = c(.apnsID), let device = c(.device), let type = c(.type),
                  let accepted = c(.accepted).flatMap(RunFileTime.nanos(seconds:)),
                  let delivered = c(.delivered).flatMap(RunFileTime.nanos(seconds:)),
                  let reported = c(.reported), let missed = c(.deadlineMissed).flatMap({ Bool($0) }) else {
                return nil
            }
            let reportedNanos = reported.isEmpty ? nil : RunFileTime.nanos(seconds: reported)
            guard reported.isEmpty || reportedNanos != nil else { return nil }
            return PushRow(apnsID: apnsID, device: device, pushType: type, acceptedNanos: accepted,
                           deliveredNanos: delivered, reportedNanos: reportedNanos, deadlineMissed: missed)
        }
    }
}

private let comma = UInt8(ascii: ",")


