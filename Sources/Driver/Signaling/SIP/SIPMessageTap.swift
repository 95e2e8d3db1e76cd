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
    /// The four methods' and REGISTER's and OPTIONS' words, for `SIPLabelCode.of`.
    private let methods = SIPLabelCode.MethodWords()

    init(journal: WorkerJournal, table: CallTable, clock: any Clock, runStart: UInt64, sampleEvery: Int) {
        self.journal = journal
        self.table = table
        self.clock = clock
        self.runStart = runStart
        self.sampleEvery = sampleEvery
    }

    /// The sample is decided first: a message of a call not sampled names nothing. The usual labels go by number
    /// (`SIPLabelCode`), the rest by their text.
    func message(_ local: Int, callID: String, sent: Bool, _ message: SIPMessage) {
        guard let call = table.devices[local].callID, call % sampleEvery == 0 else { return }
        let code = SIPLabelCode.of(message, methods)
        if code == SIPLabelCode.none { return }
        if code == SIPLabelCode.other { return byText(local, callID: callID, sent: sent, message) }
        let t = clock.nowNanos() &- runStart
        let middle = middle(local)
        guard let end = parts.end(code: code, sent: sent, label: { SIPLabelCode.label(code) }) else {
            return whole(t, local, callID: callID, sent: sent, label: SIPLabelCode.label(code))
        }
        write(t, middle: middle, callID: callID, end: end)
    }

    /// A message of a method with no number: its label made and its end found by the label's text.
    private func byText(_ local: Int, callID: String, sent: Bool, _ message: SIPMessage) {
        guard let label = label(message) else { return }
        let t = clock.nowNanos() &- runStart
        let middle = middle(local)
        guard let end = parts.end(label, sent: sent) else {
            return whole(t, local, callID: callID, sent: sent, label: label)
        }
        write(t, middle: middle, callID: callID, end: end)
    }

    private func middle(_ local: Int) -> Range<Int> {
        let table = self.table
        return parts.middle(local) { table.devices[local].identity.id }
    }

    private func write(_ t: UInt64, middle: Range<Int>, callID: String, end: Range<Int>) {
        let journal = self.journal
        parts.bytes.withUnsafeBufferPointer { all in
            let middle = UnsafeBufferPointer(rebasing: all[middle]), end = UnsafeBufferPointer(rebasing: all[end])
            journal.history { HistoryText.sip(t: t, middle: middle, conversation: callID, end: end, into: &$0) }
        }
    }

    /// The line written whole, once the parts' table is full.
    private func whole(_ t: UInt64, _ local: Int, callID: String, sent: Bool, label: String) {
        let device = table.devices[local].identity.id
        journal.history {
            HistoryText.sip(t: t, device: device, conversation: callID, sent: sent, message: label, into: &$0)
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

/// A `sip` line's label as a small number, read from the message without making or comparing a `String`: the
/// request's method (`re-INVITE` for an INVITE with a To tag) or a response's status and CSeq method, for the four
/// methods of a call. A method is known by its text's representation: `SIPMethod.named` gives the literal (a small
/// string, its bytes in the value) for each, so equal words are equal names; another method, or the same name
/// made some other way, is `other` and goes by its text (`SIPMessageTap.label`), with the same label. Comparing
/// methods as strings (`_stringCompareWithSmolCheck` for each unequal pair) and finding the response's label
/// `String` were ~200 instructions a message, 29 lines a hold call (issue 33, s55).
enum SIPLabelCode {
    /// REGISTER and OPTIONS: no line.
    static let none = -1
    /// A method without a number: the line goes by its label's text.
    static let other = -2
    private static let reInvite = 4
    private static let names = ["INVITE", "ACK", "BYE", "CANCEL"]
    /// For callers without a tap's own (tests).
    static let words = MethodWords()

    /// The methods' words, held by each tap: a static table was reached through its lazy initialiser's check
    /// and an array at every message.
    struct MethodWords {
        let invite = SIPLineParts.words(SIPMethod.invite.rawValue)
        let ack = SIPLineParts.words(SIPMethod.ack.rawValue)
        let bye = SIPLineParts.words(SIPMethod.bye.rawValue)
        let cancel = SIPLineParts.words(SIPMethod.cancel.rawValue)
        let register = SIPLineParts.words(SIPMethod.register.rawValue)
        let options = SIPLineParts.words(SIPMethod.options.rawValue)

        /// 0...3 for `names`, 4 for REGISTER and OPTIONS, nil for any other.
        @inline(__always)
        func number(_ method: SIPMethod) -> Int? {
            let w = SIPLineParts.words(method.rawValue)
            if w == invite { return 0 }
            if w == ack { return 1 }
            if w == bye { return 2 }
            if w == cancel { return 3 }
            if w == register || w == options { return 4 }
            return nil
        }
    }

    static func of(_ message: SIPMessage, _ words: MethodWords = SIPLabelCode.words) -> Int {
        if let method = message.method {
            guard let m = words.number(method) else { return other }
            if m >= 4 { return none }
            return m == 0 && message.toTag != nil ? reInvite : m
        }
        guard let status = message.status, let method = message.cseq?.method else { return none }
        guard let m = words.number(method) else { return other }
        if m >= 4 { return none }
        return 8 + (status << 2 | m)
    }

    /// The label's text: what `SIPSignaling.historyLabel` says of the same message.
    static func label(_ code: Int) -> String {
        if code < 4 { return names[code] }
        if code == reInvite { return "re-INVITE" }
        return "\((code - 8) >> 2) \(names[(code - 8) & 3])"
    }
}
