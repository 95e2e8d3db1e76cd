import CallModel

/// The fixed-shape reader (HistoryReader+FixedLines.swift) for the lines an HTTP call writes with the server's views:
/// `push` and `final` lines and `complete` lines with a view, in exactly the shapes `HistoryText.push`, `final` and
/// `view` write, texts without escapes. They were read by the general scanner, a key matched at a time into a
/// `LineFields`: ~8,700 instructions a line, ~96,000 of the vs-locust call's 11 lines (issue 33, s52). As for the
/// other fixed shapes, any other line (another key order, a negative version, an escape, an unknown key or word)
/// returns nil and goes through the general scanner, which reads it as before.
extension FixedLine {
    /// A view in `HistoryText.view`'s shape: `{"id":…,["version":N,]"ended":B,"members":[{"device":…,"state":…},…]}`.
    mutating func view(_ texts: inout TextTable) -> ConversationView? {
        guard literal("{\"id\":\""), let id = text(&texts) else { return nil }
        var version: UInt64?
        if literal(",\"version\":") {
            guard let digits = digits() else { return nil }
            version = digits
        }
        guard literal(",\"ended\":") else { return nil }
        let ended: Bool
        if literal("true") {
            ended = true
        } else if literal("false") {
            ended = false
        } else {
            return nil
        }
        guard literal(",\"members\":[") else { return nil }
        var members: [ConversationView.Member] = []
        if !literal("]") {
            members.reserveCapacity(4)
            repeat {
                guard literal("{\"device\":\""), let device = text(&texts), literal(",\"state\":\""),
                      let state = word(HistoryNames.memberStates), literal("}") else { return nil }
                members.append(.init(device: device, state: state))
            } while literal(",")
            guard literal("]") else { return nil }
        }
        guard literal("}") else { return nil }
        var view = ConversationView(uuid: id, version: Int(version ?? 0), ended: ended, members: members)
        view.hasVersion = version != nil
        return view
    }

    /// When `key` comes next, the view after it into `value`: false when the key is there but the view is not in
    /// the fixed shape; true, `value` untouched, when the key is not there.
    mutating func optionalView(_ key: StaticString, into value: inout ConversationView?,
                               _ texts: inout TextTable) -> Bool {
        guard literal(key) else { return true }
        guard let view = view(&texts) else { return false }
        value = view
        return true
    }

    /// A list of plain texts, `[]` or `["a","b"]`.
    mutating func texts(_ table: inout TextTable) -> [String]? {
        guard literal("[") else { return nil }
        var list: [String] = []
        if literal("]") { return list }
        repeat {
            guard literal("\""), let text = text(&table) else { return nil }
            list.append(text)
        } while literal(",")
        return literal("]") ? list : nil
    }
}

extension HistoryReader {
    /// After its head (`FixedLine.head`), a `push` line in `HistoryText.push`'s shape (conversation written).
    static func pushLine(_ c: inout FixedLine, t: UInt64, number: Int, texts: inout TextTable) -> HistoryEvent? {
        guard c.literal("push\",\"device\":\""), let device = c.text(&texts) else { return nil }
        var p = Push(device: device, event: .updated)
        guard c.optionalText(",\"user\":\"", into: &p.user, &texts), c.literal(",\"event\":\""),
              let event = c.word(HistoryNames.pushEvents), c.literal(",\"conversation\":\""),
              let conversation = c.text(&texts),
              c.optionalText(",\"reason\":\"", into: &p.reason, &texts),
              c.optionalText(",\"into\":\"", into: &p.into, &texts),
              c.optionalView(",\"view\":", into: &p.view, &texts), c.literal("}"), c.atEnd else { return nil }
        p.event = event
        p.conversation = conversation
        return HistoryEvent(t: t, line: number, .push(p))
    }

    /// After its head, a `final` line in `HistoryText.final`'s shape.
    static func finalLine(_ c: inout FixedLine, t: UInt64, number: Int, texts: inout TextTable) -> HistoryEvent? {
        var user: String?
        guard c.literal("final\",\"device\":\""), let device = c.text(&texts),
              c.optionalText(",\"user\":\"", into: &user, &texts), c.literal(",\"conversation\":\""),
              let conversation = c.text(&texts), c.literal(",\"server\":"), let server = c.view(&texts),
              c.literal(",\"local\":{\"state\":\""), let state = c.word(HistoryNames.memberStates),
              c.literal(",\"members\":"), let members = c.texts(&texts), c.literal(",\"active\":"),
              let active = c.texts(&texts), c.literal("}}"), c.atEnd else { return nil }
        let local = LocalView(state: state, members: members, active: active)
        return HistoryEvent(t: t, line: number, .final(Final(device: device, conversation: conversation,
                                                             server: server, local: local, user: user)))
    }
}
