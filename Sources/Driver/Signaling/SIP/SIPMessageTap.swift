import Determinism
import Results
import RunFormats
import SIP

/// The history's `sip` lines (`SIPSignaling+History`): every message of a sampled call, one line each. One per
/// worker, held by each agent's `onMessage` closure, with what a message reads held here once (the journal, the
/// table, the clock, the sample), so a message costs no reference counting to reach them.
///
/// Ownership rule: touched only on the worker's loop (the agents' events run there).
final class SIPMessageTap {
    private let journal: WorkerJournal
    private let table: CallTable
    private let clock: any Clock
    private let runStart: UInt64
    /// actions.csv's sample: every message of one planned call in `sampleEvery`, none of the others.
    private let sampleEvery: Int
    /// The history's response labels, made once per status and method.
    private var labels = SIPResponseLabels()
    /// Each device's and each label's part of a line, made once (`SIPLineParts`).
    private var parts = SIPLineParts()

    init(journal: WorkerJournal, table: CallTable, clock: any Clock, runStart: UInt64, sampleEvery: Int) {
        self.journal = journal
        self.table = table
        self.clock = clock
        self.runStart = runStart
        self.sampleEvery = sampleEvery
    }

    /// The sample is decided first: a message of a call not sampled names nothing.
    func message(_ local: Int, callID: String, sent: Bool, _ message: SIPMessage) {
        guard let call = table.devices[local].callID, call % sampleEvery == 0,
              let label = label(message) else { return }
        let t = clock.nowNanos() &- runStart
        let table = self.table
        let middle = parts.middle(local) { table.devices[local].identity.id }
        guard let end = parts.end(label, sent: sent) else {
            return journal.history {
                HistoryText.sip(t: t, device: table.devices[local].identity.id, conversation: callID, sent: sent,
                                message: label, into: &$0)
            }
        }
        let journal = self.journal
        parts.bytes.withUnsafeBufferPointer { all in
            let middle = UnsafeBufferPointer(rebasing: all[middle]), end = UnsafeBufferPointer(rebasing: all[end])
            journal.history { HistoryText.sip(t: t, middle: middle, conversation: callID, end: end, into: &$0) }
        }
    }

    /// `SIPSignaling.historyLabel(_:)` with a response's `<status> <METHOD>` made once per pair and kept:
    /// interpolating it for every response of a sampled call was the tap's largest cost. The start line is read
    /// once here (going through `historyLabel` for a request read it twice).
    func label(_ message: SIPMessage) -> String? {
        if let method = message.method {
            if method == .register || method == .options { return nil }
            return method == .invite && message.toTag != nil ? "re-INVITE" : method.rawValue
        }
        guard let status = message.status, let method = message.cseq?.method,
              method != .register, method != .options else { return nil }
        return labels.label(status: status, method: method)
    }
}

/// The history's labels of responses (`200 INVITE`), each pair's `String` made at its first use and found again by
/// comparing the status and the method (a call's responses come in a handful of pairs).
struct SIPResponseLabels {
    private var entries: [(status: Int, method: SIPMethod, label: String)] = []

    mutating func label(status: Int, method: SIPMethod) -> String {
        for entry in entries where entry.status == status && entry.method == method { return entry.label }
        let label = "\(status) \(method.rawValue)"
        if entries.count < 64 { entries.append((status, method, label)) }
        return label
    }
}
