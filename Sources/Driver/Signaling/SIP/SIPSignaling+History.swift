import RunFormats
import SIP
import SIPClient

/// SIP calls in the run's history (docs/CHECKER.md): each device's dialog state as it changes (`dialog` lines,
/// all of them, which the checker judges), and the messages of a call (`sip` lines, for its timelines), sampled
/// by planned call as actions.csv samples its rows: every message of one call in `rowSampleEvery`, none of the
/// others, so a sampled call reads whole.
extension SIPSignaling {
    /// `local`'s dialog for `callID` entered `state`: written once per change.
    func dialog(_ local: Int, _ callID: String, _ state: HistoryDialogState, reason: String? = nil) {
        // One lookup, changed in place by index (three lookups, each comparing the Call-ID, before).
        guard let i = legs.index(forKey: Self.legKey(local, callID)) else {
            return writeDialog(local, callID, state, reason: reason, call: nil)
        }
        guard legs.values[i].dialogState != state else { return }
        legs.values[i].dialogState = state
        writeDialog(local, callID, state, reason: reason, call: legs.values[i].call)
    }

    /// The terminated line of a leg already taken out of `legs`, written for every end so the checker judges it:
    /// a refusal with no 180 before it (`failed_<status>`, the proxy's 408), a CANCEL before any ringing.
    func dialogEnded(_ local: Int, _ callID: String, leg: Leg, reason: String) {
        closeMedia(Self.legKey(local, callID))
        guard leg.dialogState != .terminated else { return }
        writeDialog(local, callID, .terminated, reason: reason, call: leg.call)
    }

    /// A 2xx that crossed this device's CANCEL and came after its 487 (a proxy forwards it, RFC 6026): the agent
    /// ACKed it and sends a BYE, so this end's dialog was confirmed, as the callee's is; `terminated bye` follows.
    /// The `cancelled` line was held back for this (`cancelling`), so the history never shows it live again.
    func cancelledAnswered(_ local: Int, _ callID: String) {
        let key = Self.legKey(local, callID)
        guard let leg = cancelling[key], leg.dialogState != .confirmed else { return }
        cancelling[key]?.dialogState = .confirmed
        writeDialog(local, callID, .confirmed, reason: nil, call: leg.call)
    }

    /// At the end of the run: the cancelled calls still waiting for `.settled` end as cancelled.
    func settleCancelled() {
        for (key, leg) in cancelling { dialogEnded(key.local, key.callID, leg: leg, reason: "cancelled") }
        cancelling.removeAll()
    }

    private func writeDialog(_ local: Int, _ callID: String, _ state: HistoryDialogState, reason: String?,
                             call: Int?) {
        guard let journal = books.journal else { return }
        let t = now &- books.runStart
        let identity = table.devices[local].identity
        journal.history {
            HistoryText.dialog(t: t, device: identity.id, conversation: callID, state: state, reason: reason,
                               call: call, user: identity.user, into: &$0)
        }
    }

    /// Taps `agent`'s messages for device `local` when the run keeps a history.
    func tapMessages(_ agent: SIPUserAgent, local: Int) {
        guard books.journal != nil else { return }
        agent.onMessage = { [unowned self] callID, sent, message in
            self.message(local, callID: callID, sent: sent, message)
        }
    }

    /// The sample is decided first: a message of a call not sampled names nothing (its label was a `String` made
    /// for every message before).
    private func message(_ local: Int, callID: String, sent: Bool, _ message: SIPMessage) {
        guard let journal = books.journal, let call = table.devices[local].callID,
              call % max(1, settings.rowSampleEvery) == 0, let message = historyLabel(message) else { return }
        let t = now &- books.runStart
        let device = table.devices[local].identity.id
        journal.history {
            HistoryText.sip(t: t, device: device, conversation: callID, sent: sent, message: message, into: &$0)
        }
    }

    /// `historyLabel(_:)` with a response's `<status> <METHOD>` made once per pair and kept (`responseLabels`):
    /// interpolating it for every response of a sampled call was the tap's largest cost.
    func historyLabel(_ message: SIPMessage) -> String? {
        guard message.method == nil, let status = message.status, let method = message.cseq?.method else {
            return Self.historyLabel(message)
        }
        if method == .register || method == .options { return nil }
        return responseLabels.label(status: status, method: method)
    }

    /// A call's message as the history names it: the method (`re-INVITE` for an INVITE inside a dialog) or
    /// `<status> <METHOD>`; nil for REGISTER and OPTIONS, which belong to no call.
    static func historyLabel(_ message: SIPMessage) -> String? {
        if let method = message.method {
            if method == .register || method == .options { return nil }
            return method == .invite && message.toTag != nil ? "re-INVITE" : method.rawValue
        }
        guard let status = message.status, let method = message.cseq?.method, method != .register,
              method != .options else { return nil }
        return "\(status) \(method.rawValue)"
    }

    /// A terminated dialog's reason as the history words it.
    static func endReason(_ reason: SIPEndReason) -> String {
        switch reason {
        case .localBye: return "bye"
        case .remoteBye: return "remote_bye"
        case .cancelled: return "cancelled"
        case .declined(let status): return "declined_\(status)"
        case .timedOut: return "timed_out"
        case .elsewhere(let cause): return cause == 200 ? "joined_elsewhere" : "declined_elsewhere"
        }
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
