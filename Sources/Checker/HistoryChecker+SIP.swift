import CallModel

/// What the checker knows of SIP calls: each Call-ID's dialog at each device, from the history's `dialog` lines.
/// SIP has no server holding a conversation's state (the proxy forwards), so a call's truth is its two user
/// agents' dialogs: each device's own line is its view, and the other party's is what "the server says" to it.
struct SIPDialogs {
    /// One device's dialog for a Call-ID.
    struct Party {
        var device: String
        var state: DialogState
        /// The line of its latest state, and of its first `confirmed` (nil while never confirmed).
        var index: Int
        var confirmedIndex: Int?
        var reason: String?
    }

    struct Call {
        var parties: [Party] = []
        /// The line at which every party (two or more) had terminated: the conversation is over.
        var endedIndex: Int?
        var reappearReported = false
    }

    /// Each Call-ID's dialogs, in the history's order (findings come out in it), found through `callOf`; a line
    /// changes its call in place (`dialog`), without a copy of its parties per line.
    var calls: [Call] = []
    var ids: [String] = []
    /// By the Call-ID's number (`CheckState.names`): its index in `calls`, -1 for none.
    var callOf: [Int32] = []
    /// By device number (`CheckState.devices`): the Call-IDs whose dialog it holds confirmed and not held (empty
    /// for a device that holds none).
    var active: [[String]] = []
}

extension CheckState {
    // MARK: - SIP dialogs

    /// A `dialog` line: judged by `ended-conversation-never-reappears` (a terminated dialog, or a call both ends
    /// terminated, never shows live again) and `no-device-active-in-two-unheld-conversations` at once; the rest
    /// when the history is over (`finishDialogs`).
    mutating func dialog(_ d: DialogLine, at i: Int, t: UInt64) {
        let id = d.conversation
        let n = name(id)
        var k = Int(sip.callOf[n])
        if k < 0 {
            k = sip.calls.count
            sip.callOf[n] = Int32(k)
            sip.ids.append(id)
            sip.calls.append(SIPDialogs.Call())
        }
        // Moved out and back rather than copied: the parties array stays uniquely referenced.
        var call = SIPDialogs.Call()
        swap(&call, &sip.calls[k])
        let p = call.parties.firstIndex { $0.device == d.device }
        if d.state != .terminated, !call.reappearReported {
            if let p, call.parties[p].state == .terminated {
                call.reappearReported = true
                let before = call.parties[p]
                report(.endedStaysEnded, conversations: [id], ops: [], devices: [d.device],
                       "\(d.device)'s dialog \(id) was terminated (\(before.reason ?? "no reason"), line "
                       + "\(line(before.index))) but shows \(d.state.rawValue) at line \(line(i))",
                       events: [before.index, i])
            } else if let ended = call.endedIndex {
                call.reappearReported = true
                report(.endedStaysEnded, conversations: [id], ops: [], devices: [d.device],
                       "call \(id) ended at both ends (line \(line(ended))) but \(d.device)'s dialog shows "
                       + "\(d.state.rawValue) at line \(line(i))", events: [ended, i])
            }
        }
        if let p {
            call.parties[p].state = d.state
            call.parties[p].index = i
            call.parties[p].reason = d.reason
            if d.state == .confirmed, call.parties[p].confirmedIndex == nil { call.parties[p].confirmedIndex = i }
        } else {
            call.parties.append(SIPDialogs.Party(device: d.device, state: d.state, index: i,
                                                 confirmedIndex: d.state == .confirmed ? i : nil, reason: d.reason))
        }
        if call.endedIndex == nil, call.parties.count >= 2, call.parties.allSatisfy({ $0.state == .terminated }) {
            call.endedIndex = i
            // Actions on it from now on must fail, as on any ended conversation (checkNotEndedBefore).
            markEnded(conversation(id), EndedKnowledge(t: t, index: i, op: nil))
        }
        sip.calls[k] = call
        // The device's active dialogs changed in place, by its number.
        let at = device(d.device)
        sip.active[at].removeAll { $0 == id }
        if d.state == .confirmed { sip.active[at].append(id) }
        if d.state == .confirmed, sip.active[at].count > 1 { checkSingleActiveDialog(d.device, id, at: i) }
    }

    /// `device` holds `id` confirmed and not held beside another such dialog, on which no action is under way (a
    /// hold racing this answer, a `together` step, may still take the other one off). Dialog lines are each user
    /// agent's own state, facts rather than a server's word, so an action that ended indeterminate excuses nothing.
    mutating func checkSingleActiveDialog(_ device: String, _ id: String, at i: Int) {
        for other in devices.find(device).map({ sip.active[$0] }) ?? [] where other != id {
            guard !(lookup(other).map { conversations[$0].open > 0 } ?? false),
                  let there = sipCall(other)?.parties.first(where: { $0.device == device }) else { continue }
            let key = device + "\u{0}" + min(id, other) + "\u{0}" + max(id, other)
            guard reportedPairs.insert(key).inserted else { continue }
            report(.singleActive, conversations: [other, id], ops: [], devices: [device],
                   "\(device) holds two confirmed dialogs, neither on hold: \(other) (line \(line(there.index))) "
                   + "and \(id) (line \(line(i)))", events: [there.index, i])
        }
    }

    /// The dialogs of Call-ID `id`, if any of its lines was read.
    func sipCall(_ id: String) -> SIPDialogs.Call? {
        guard let n = names.find(id), sip.callOf[n] >= 0 else { return nil }
        return sip.calls[Int(sip.callOf[n])]
    }

    /// After the whole history: for each Call-ID both of whose user agents wrote lines, a dialog one end confirmed
    /// was confirmed by the other too (`dialog-confirmed-at-both-ends`), and no end is left in the dialog while the
    /// other terminated it (`final-views-agree-with-server`), unless an action on the call was still under way when
    /// the history ended. An end still early is not judged: its INVITE transaction is in flight (a final response is
    /// owed, and a timer ends it within 32 s, or the proxy's), where a confirmed dialog has nothing that ends it.
    mutating func finishDialogs() {
        for (id, call) in zip(sip.ids, sip.calls) {
            guard call.parties.count >= 2 else { continue }
            checkConfirmedAtBothEnds(id, call)
            let inFlight = lookup(id).map { conversations[$0].open > 0 } ?? false
            let inDialog = call.parties.contains { $0.state == .confirmed || $0.state == .held }
            guard !inFlight, inDialog,
                  call.parties.contains(where: { $0.state == .terminated && !Self.endedElsewhere($0) }) else {
                continue
            }
            let states = call.parties.map { "\($0.device) \($0.state.rawValue) (line \(line($0.index)))" }
            report(.finalViewsAgree, conversations: [id], ops: [], devices: call.parties.map(\.device),
                   "the two ends of SIP call \(id) disagree at the end: " + states.joined(separator: ", ")
                   + "; a dialog one end ended must end at the other (BYE)", events: call.parties.map(\.index))
        }
    }

    /// A branch of a forked call that ended because another device of the callee answered or declined (the
    /// proxy's CANCEL with an RFC 3326 Reason, issue 36): it was never the dialog's other end, so neither
    /// `dialog-confirmed-at-both-ends` nor `final-views-agree-with-server` pairs it with the caller.
    static func endedElsewhere(_ party: SIPDialogs.Party) -> Bool {
        party.state == .terminated && (party.reason == "joined_elsewhere" || party.reason == "declined_elsewhere")
    }

    private mutating func checkConfirmedAtBothEnds(_ id: String, _ call: SIPDialogs.Call) {
        guard let confirmed = call.parties.first(where: { $0.confirmedIndex != nil }),
              let never = call.parties.first(where: {
                  $0.confirmedIndex == nil && $0.state == .terminated && !Self.endedElsewhere($0)
              })
        else { return }  // an end still early may yet get its 200: only one that ended without it is judged
        report(.dialogConfirmedAtBothEnds, conversations: [id], ops: [], devices: [confirmed.device, never.device],
               "\(confirmed.device) confirmed dialog \(id) (line \(line(confirmed.confirmedIndex!))) but "
               + "\(never.device) never did: it ended (\(never.reason ?? "no reason"), line "
               + "\(line(never.index))); a 2xx creates the dialog at both ends (RFC 3261 §12.1, §9.1)",
               events: [confirmed.confirmedIndex!, never.index])
    }
}
