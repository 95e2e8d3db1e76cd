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
        // One lookup, changed in place.
        var call: Int?
        let found = legs.update(Self.legKey(local, callID)) { leg in
            guard leg.dialogState != state else { return }
            leg.dialogState = state
            call = leg.call
        }
        guard found else { return writeDialog(local, callID, state, reason: reason, call: nil) }
        if let call { writeDialog(local, callID, state, reason: reason, call: call) }
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
        for (key, leg) in cancelling.all { dialogEnded(key.local, key.callID, leg: leg, reason: "cancelled") }
        cancelling.removeAll()
    }

    private func writeDialog(_ local: Int, _ callID: String, _ state: HistoryDialogState, reason: String?,
                             call: Int?) {
        guard let journal = books.journal else { return }
        let t = now &- books.runStart
        // The two names read where they lie: a `let` of the identity copied (retained) all its fields.
        let device = table.devices[local].identity.id, user = table.devices[local].identity.user
        journal.history {
            HistoryText.dialog(t: t, device: device, conversation: callID, state: state, reason: reason,
                               call: call, user: user, into: &$0)
        }
    }

    /// Taps `agent`'s messages for device `local` when the run keeps a history. The closure holds the worker's
    /// one `SIPMessageTap`, which holds what each message reads: reaching the journal, the table and the clock
    /// through `self` (`unowned`, then `parts`) retained and released them at every message, 56 retains and 112
    /// releases per call (docs/SIP.md, issue 33).
    func tapMessages(_ agent: SIPUserAgent, local: Int) {
        guard let tap = messageTap else { return }
        agent.onMessage = { callID, sent, message in tap.message(local, callID: callID, sent: sent, message) }
    }

    /// The worker's message tap, made at the first agent when the run keeps a history.
    var messageTap: SIPMessageTap? {
        if let tap = tapStore { return tap }
        guard let journal = books.journal else { return nil }
        let tap = SIPMessageTap(journal: journal, table: table, clock: loop.clock, runStart: books.runStart,
                                sampleEvery: max(1, settings.rowSampleEvery))
        tapStore = tap
        return tap
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

