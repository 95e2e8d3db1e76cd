import CallModel
import TextEscaping

/// Lines of `history.jsonl` (docs/CHECKER.md), built by appending text: no encoder on the hot path.
enum HistoryText {
    static func view(_ v: ConversationView) -> String {
        // A server whose views carry no version gets none written: the checker then skips the rules needing it.
        var out = "{\"id\":\"\(v.uuid)\","
        if v.hasVersion { out += "\"version\":\(v.version)," }
        out += "\"ended\":\(v.ended),\"members\":["
        for (i, m) in v.members.enumerated() {
            if i > 0 { out += "," }
            out += "{\"device\":\"\(m.device)\",\"state\":\"\(m.state)\"}"
        }
        return out + "]}"
    }

    static func invoke(t: UInt64, op: UInt64, device: String, kind: ActionKind, conversation: String?,
                       with other: String?, member: String?, call: Int? = nil, step: String? = nil,
                       race: (name: String, offset: Int64)? = nil) -> String {
        var out = "{\"t\":\(t),\"type\":\"invoke\",\"op\":\(op),\"device\":\"\(device)\",\"kind\":\"\(kind.rawValue)\""
        if let conversation, !conversation.isEmpty { out += ",\"conversation\":\"\(conversation)\"" }
        if let other { out += ",\"with\":\"\(other)\"" }
        if let member { out += ",\"member\":\"\(member)\"" }
        if let call { out += ",\"call\":\(call)" }
        if let step { out += ",\"step\":\"\(JSONText.escape(step))\"" }
        if let race { out += ",\"race\":\"\(JSONText.escape(race.name))\",\"offset\":\(race.offset)" }
        return out + "}"
    }

    static func complete(t: UInt64, op: UInt64, outcome: String, reason: String?, conversation: String?,
                         view: ConversationView?, split: ConversationView?) -> String {
        var out = "{\"t\":\(t),\"type\":\"complete\",\"op\":\(op),\"outcome\":\"\(outcome)\""
        if let reason { out += ",\"reason\":\"\(reason)\"" }
        if let conversation, !conversation.isEmpty { out += ",\"conversation\":\"\(conversation)\"" }
        if let view { out += ",\"view\":" + Self.view(view) }
        if let split { out += ",\"split\":" + Self.view(split) }
        return out + "}"
    }

    /// The history's push events (the checker's `PushEvent`): a server's own words the mapping did not turn into
    /// one of them (`call.state`, or none at all) are written as `updated`, a view of the conversation observed.
    static let pushEvents: Set<String> = ["joined", "updated", "ended", "merged", "split", "voip"]

    static func push(t: UInt64, device: String, event: String, conversation: String, into: String?,
                     view: ConversationView?) -> String {
        let event = pushEvents.contains(event) ? event : "updated"
        var out = "{\"t\":\(t),\"type\":\"push\",\"device\":\"\(device)\",\"event\":\"\(event)\"," +
            "\"conversation\":\"\(conversation)\""
        if let into { out += ",\"into\":\"\(into)\"" }
        if let view { out += ",\"view\":" + Self.view(view) }
        return out + "}"
    }

    static func final(t: UInt64, device: String, conversation: String, server: ConversationView,
                      local: (state: String, members: [String], active: [String])) -> String {
        func list(_ xs: [String]) -> String { "[" + xs.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        return "{\"t\":\(t),\"type\":\"final\",\"device\":\"\(device)\",\"conversation\":\"\(conversation)\"," +
            "\"server\":\(view(server)),\"local\":{\"state\":\"\(local.state)\",\"members\":\(list(local.members))," +
            "\"active\":\(list(local.active))}}"
    }
}
