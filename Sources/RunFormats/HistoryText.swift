import CallModel
import TextEscaping

/// The one writer of `history.jsonl`'s lines (docs/CHECKER.md; the checker's `HistoryReader` reads them), appended
/// as bytes to the journal's buffer: no encoder and no String per line on the hot path. Every text that may come from
/// a server (conversation and member ids, its words) is escaped, so a foreign server's id holding a quote or a
/// backslash cannot break a line.
public enum HistoryText {
    /// A conversation as the server showed it (`view`, `split`, a final line's `server`).
    public static func view(_ v: ConversationView, into o: inout [UInt8]) {
        o.raw("{\"id\":"); o.quoted(v.uuid)
        // A server whose views carry no version gets none written: the checker then skips the rules needing it.
        if v.hasVersion { o.raw(",\"version\":"); o.int(Int64(v.version)) }
        o.raw(",\"ended\":"); o.raw(v.ended ? "true" : "false")
        o.raw(",\"members\":[")
        for (i, m) in v.members.enumerated() {
            o.raw(i > 0 ? ",{\"device\":" : "{\"device\":"); o.quoted(m.device)
            o.raw(",\"state\":"); o.quoted(m.state); o.raw("}")
        }
        o.raw("]}")
    }

    /// An operation sent: its number `op` pairs it with its `complete` line.
    public static func invoke(t: UInt64, op: UInt64, device: String, kind: ActionKind, conversation: String?,
                              with other: String?, member: String?, call: Int? = nil, step: String? = nil,
                       race: (name: String, offset: Int64)? = nil, user: String? = nil, into o: inout [UInt8]) {
        // Summed one by one: an array of the six optional texts was an allocation per line.
        let texts = bound(user) + bound(conversation) + bound(other) + bound(member) + bound(step) + bound(race?.name)
        let capacity = 160 + 4 * JSONLineWriter.integerBound + JSONLineWriter.bound(device)
            + JSONLineWriter.bound(kind.rawValue) + texts
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var w = JSONLineWriter(scratch)
            w.raw("{\"t\":"); w.integer(t); w.raw(",\"type\":\"invoke\",\"op\":"); w.integer(op)
            w.raw(",\"device\":"); w.quoted(device)
            if let user { w.raw(",\"user\":"); w.quoted(user) }
            w.raw(",\"kind\":"); w.quoted(kind.rawValue)
            if let conversation, !conversation.isEmpty { w.raw(",\"conversation\":"); w.quoted(conversation) }
            if let other { w.raw(",\"with\":"); w.quoted(other) }
            if let member { w.raw(",\"member\":"); w.quoted(member) }
            if let call { w.raw(",\"call\":"); w.integer(Int64(call)) }
            if let step { w.raw(",\"step\":"); w.quoted(step) }
            if let race { w.raw(",\"race\":"); w.quoted(race.name); w.raw(",\"offset\":"); w.integer(race.offset) }
            w.byte(UInt8(ascii: "}"))
            w.append(to: &o)
        }
    }

    /// Operation `op`'s outcome (`ok`, `fail`, `info`) and what the answer showed.
    public static func complete(t: UInt64, op: UInt64, outcome: String, reason: String?, conversation: String?,
                                view: ConversationView?, split: ConversationView?, into o: inout [UInt8]) {
        // A SIP call's completes carry no view: built at once (`JSONLineWriter`); views go piece by piece.
        if view == nil, split == nil {
            let capacity = 96 + 2 * JSONLineWriter.integerBound + JSONLineWriter.bound(outcome) + bound(reason)
                + bound(conversation)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
                var w = JSONLineWriter(scratch)
                w.raw("{\"t\":"); w.integer(t); w.raw(",\"type\":\"complete\",\"op\":"); w.integer(op)
                w.raw(",\"outcome\":"); w.quoted(outcome)
                if let reason { w.raw(",\"reason\":"); w.quoted(reason) }
                if let conversation, !conversation.isEmpty { w.raw(",\"conversation\":"); w.quoted(conversation) }
                w.byte(UInt8(ascii: "}"))
                w.append(to: &o)
            }
            return
        }
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":\"complete\",\"op\":"); o.int(op)
        o.raw(",\"outcome\":"); o.quoted(outcome)
        if let reason { o.raw(",\"reason\":"); o.quoted(reason) }
        if let conversation, !conversation.isEmpty { o.raw(",\"conversation\":"); o.quoted(conversation) }
        if let view { o.raw(",\"view\":"); Self.view(view, into: &o) }
        if let split { o.raw(",\"split\":"); Self.view(split, into: &o) }
        o.raw("}")
    }

    /// The history's push events (the checker's `PushEvent`): a server's own words the mapping did not turn into
    /// one of them (`call.state`, or none at all) are written as `updated`, a view of the conversation observed.
    public static let pushEvents: Set<String> = Set(HistoryPushEvent.allCases.map(\.rawValue))

    public static func push(t: UInt64, device: String, event: String, conversation: String, into: String?,
                            view: ConversationView?, user: String? = nil, reason: String? = nil,
                            into o: inout [UInt8]) {
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":\"push\",\"device\":"); o.quoted(device); userField(user, &o)
        o.raw(",\"event\":"); o.quoted(pushEvents.contains(event) ? event : HistoryPushEvent.updated.rawValue)
        o.raw(",\"conversation\":"); o.quoted(conversation)
        if let reason { o.raw(",\"reason\":"); o.quoted(reason) }
        if let into { o.raw(",\"into\":"); o.quoted(into) }
        if let view { o.raw(",\"view\":"); Self.view(view, into: &o) }
        o.raw("}")
    }

    /// After a call: the server's view of a conversation beside one device's own.
    public static func final(t: UInt64, device: String, conversation: String, server: ConversationView,
                             local: (state: String, members: [String], active: [String]), user: String? = nil,
                             into o: inout [UInt8]) {
        func list(_ xs: [String]) {
            o.raw("[")
            for (i, x) in xs.enumerated() {
                if i > 0 { o.raw(",") }
                o.quoted(x)
            }
            o.raw("]")
        }
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":\"final\",\"device\":"); o.quoted(device); userField(user, &o)
        o.raw(",\"conversation\":"); o.quoted(conversation)
        o.raw(",\"server\":"); view(server, into: &o)
        o.raw(",\"local\":{\"state\":"); o.quoted(local.state)
        o.raw(",\"members\":"); list(local.members)
        o.raw(",\"active\":"); list(local.active)
        o.raw("}}")
    }

    /// callstorm killed the target (a `target` fault): the checker ends every conversation live at this mark.
    public static func targetKilled(t: UInt64, into o: inout [UInt8]) {
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":"); o.quoted(HistoryLineType.targetKilled.rawValue); o.raw("}")
    }

    /// The most bytes an optional text takes in a line (`JSONLineWriter.bound`), 0 when absent.
    static func bound(_ text: String?) -> Int { text.map(JSONLineWriter.bound) ?? 0 }

    /// `"user"` after a line's `"device"`, when the scenario groups devices into users (`users:`); absent
    /// otherwise, so runs without users write the lines they always did.
    private static func userField(_ user: String?, _ o: inout [UInt8]) {
        guard let user else { return }
        o.raw(",\"user\":"); o.quoted(user)
    }

    /// The run's end for this worker: operations without a completion stay open.
    public static func stop(t: UInt64, into o: inout [UInt8]) {
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":\"stop\"}")
    }
}

private extension Array where Element == UInt8 {
    mutating func raw(_ text: StaticString) { text.withUTF8Buffer { append(contentsOf: $0) } }
    mutating func quoted(_ text: String) { JSONText.appendQuoted(text, to: &self) }
    mutating func int(_ value: Int64) { JSONText.appendInteger(value, to: &self) }
    mutating func int(_ value: UInt64) { JSONText.appendInteger(value, to: &self) }
}

// MARK: - SIP

extension HistoryText {
    /// A SIP message of a call (`message`: a method, `re-INVITE`, or `<status> <METHOD>`), sent or received by
    /// `device`'s user agent; `conversation` is its Call-ID. Retransmissions are not written.
    public static func sip(t: UInt64, device: String, conversation: String, sent: Bool, message: String,
                           into o: inout [UInt8]) {
        let capacity = 96 + JSONLineWriter.integerBound + JSONLineWriter.bound(device)
            + JSONLineWriter.bound(conversation) + JSONLineWriter.bound(message)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var w = JSONLineWriter(scratch)
            w.raw("{\"t\":"); w.integer(t); w.raw(",\"type\":\"sip\",\"device\":"); w.quoted(device)
            w.raw(",\"conversation\":"); w.quoted(conversation)
            if sent { w.raw(",\"sent\":true,\"message\":") } else { w.raw(",\"sent\":false,\"message\":") }
            w.quoted(message)
            w.byte(UInt8(ascii: "}"))
            w.append(to: &o)
        }
    }

    /// `device`'s dialog for Call-ID `conversation` is now `state`; a terminated one says why (`reason`: `bye`,
    /// `remote_bye`, `cancelled`, `declined_603`, `failed_486`, `timed_out`, …). `call` is the planned call;
    /// `user` the device's user (`users:`), after `device` as on invoke and push lines.
    public static func dialog(t: UInt64, device: String, conversation: String, state: HistoryDialogState,
                              reason: String?, call: Int?, user: String? = nil, into o: inout [UInt8]) {
        let capacity = 128 + 2 * JSONLineWriter.integerBound + JSONLineWriter.bound(device)
            + JSONLineWriter.bound(conversation) + JSONLineWriter.bound(state.rawValue)
            + bound(user) + bound(reason)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var w = JSONLineWriter(scratch)
            w.raw("{\"t\":"); w.integer(t); w.raw(",\"type\":\"dialog\",\"device\":"); w.quoted(device)
            if let user { w.raw(",\"user\":"); w.quoted(user) }
            w.raw(",\"conversation\":"); w.quoted(conversation)
            w.raw(",\"state\":"); w.quoted(state.rawValue)
            if let reason { w.raw(",\"reason\":"); w.quoted(reason) }
            if let call { w.raw(",\"call\":"); w.integer(Int64(call)) }
            w.byte(UInt8(ascii: "}"))
            w.append(to: &o)
        }
    }

    /// `device`'s RTP stream in Call-ID `conversation` found `finding` (docs/MEDIA.md); `call` is the planned call.
    public static func media(t: UInt64, device: String, conversation: String, finding: HistoryMediaFinding,
                             call: Int?, into o: inout [UInt8]) {
        o.raw("{\"t\":"); o.int(t); o.raw(",\"type\":\"media\",\"device\":"); o.quoted(device)
        o.raw(",\"conversation\":"); o.quoted(conversation)
        o.raw(",\"reason\":"); o.quoted(finding.rawValue)
        if let call { o.raw(",\"call\":"); o.int(Int64(call)) }
        o.raw("}")
    }
}
