import Checker

/// Writes history lines the way the driver does, with a clock that moves 100 ns per line and op ids in order,
/// so tests read as the story they tell.
struct HistoryBuilder {
    var lines: [String] = []
    var t: UInt64 = 0
    var nextOp = 1

    private mutating func tick() -> UInt64 {
        t += 100
        return t
    }

    @discardableResult
    mutating func invoke(_ device: String, _ kind: String, _ conversation: String? = nil, with: String? = nil,
                         member: String? = nil) -> Int {
        let op = nextOp
        nextOp += 1
        var s = "{\"t\":\(tick()),\"type\":\"invoke\",\"op\":\(op),\"device\":\"\(device)\",\"kind\":\"\(kind)\""
        if let conversation { s += ",\"conversation\":\"\(conversation)\"" }
        if let with { s += ",\"with\":\"\(with)\"" }
        if let member { s += ",\"member\":\"\(member)\"" }
        lines.append(s + "}")
        return op
    }

    mutating func complete(_ op: Int, _ outcome: String = "ok", view: String? = nil, split: String? = nil,
                           reason: String? = nil) {
        var s = "{\"t\":\(tick()),\"type\":\"complete\",\"op\":\(op),\"outcome\":\"\(outcome)\""
        if let reason { s += ",\"reason\":\"\(reason)\"" }
        if let view { s += ",\"view\":\(view)" }
        if let split { s += ",\"split\":\(split)" }
        lines.append(s + "}")
    }

    /// An invoke answered ok at once.
    @discardableResult
    mutating func call(_ device: String, _ kind: String, _ conversation: String? = nil, with: String? = nil,
                       member: String? = nil, view: String, split: String? = nil) -> Int {
        let op = invoke(device, kind, conversation, with: with, member: member)
        complete(op, view: view, split: split)
        return op
    }

    mutating func push(_ device: String, _ event: String, _ conversation: String, into: String? = nil,
                       view: String? = nil, reason: String? = nil) {
        var s = "{\"t\":\(tick()),\"type\":\"push\",\"device\":\"\(device)\",\"event\":\"\(event)\","
        s += "\"conversation\":\"\(conversation)\""
        if let reason { s += ",\"reason\":\"\(reason)\"" }
        if let into { s += ",\"into\":\"\(into)\"" }
        if let view { s += ",\"view\":\(view)" }
        lines.append(s + "}")
    }

    mutating func final(_ device: String, _ conversation: String, server: String, state: String,
                        members: [String] = [], active: [String] = []) {
        func list(_ xs: [String]) -> String { "[" + xs.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        lines.append("{\"t\":\(tick()),\"type\":\"final\",\"device\":\"\(device)\",\"conversation\":\"\(conversation)\","
                     + "\"server\":\(server),\"local\":{\"state\":\"\(state)\",\"members\":\(list(members)),"
                     + "\"active\":\(list(active))}}")
    }

    /// A SIP dialog line: `device`'s dialog for Call-ID `conversation` is now `state`.
    mutating func dialog(_ device: String, _ conversation: String, _ state: String, reason: String? = nil,
                         call: Int? = nil) {
        var s = "{\"t\":\(tick()),\"type\":\"dialog\",\"device\":\"\(device)\",\"conversation\":\"\(conversation)\","
        s += "\"state\":\"\(state)\""
        if let reason { s += ",\"reason\":\"\(reason)\"" }
        if let call { s += ",\"call\":\(call)" }
        lines.append(s + "}")
    }

    /// A SIP message line.
    mutating func sip(_ device: String, _ conversation: String, sent: Bool, _ message: String) {
        lines.append("{\"t\":\(tick()),\"type\":\"sip\",\"device\":\"\(device)\",\"conversation\":"
                     + "\"\(conversation)\",\"sent\":\(sent),\"message\":\"\(message)\"}")
    }

    mutating func stop() { lines.append("{\"t\":\(tick()),\"type\":\"stop\"}") }

    var text: String { lines.joined(separator: "\n") + "\n" }

    func events() throws -> [HistoryEvent] {
        try HistoryReader.parse(lines: text.split(separator: "\n", omittingEmptySubsequences: false))
    }
}

/// A view in JSON: `view("G", 3, "ryan:joined adam:held")`. Members carry a handle, and the view the extra keys the
/// reference target sends, so the reader's skipping of unknown keys is exercised everywhere.
func view(_ id: String, _ version: Int, _ members: String, ended: Bool = false) -> String {
    let ms = members.split(separator: " ").map { pair -> String in
        let parts = pair.split(separator: ":")
        return "{\"device\":\"\(parts[0])\",\"state\":\"\(parts[1])\","
            + "\"handle\":{\"kind\":\"generic\",\"value\":\"\(parts[0])\",\"displayName\":\"\(parts[0])\"}}"
    }
    return "{\"id\":\"\(id)\",\"state\":\"joined\",\"version\":\(version),\"video\":false,\"ended\":\(ended),"
        + "\"capabilities\":[\"pausing\",\"merging\"],\"members\":[\(ms.joined(separator: ","))],\"activeMembers\":[]}"
}
