import CallModel
import TextEscaping

/// A device as the reference target knows it after `POST /v1/devices`.
struct RegisteredDevice: Sendable {
    let id: String
    let handle: Handle
    let apnsToken: String
}

struct ServerMember: Sendable, Equatable {
    let device: String
    let handle: Handle
    var state: MemberState
}

/// The server's record of a conversation. `version` goes up by one on every change, so devices and the checker
/// can order what they saw.
struct ServerConversation: Sendable, Equatable {
    let id: String
    var members: [ServerMember]
    var ended = false
    var version = 1
    let video: Bool
    var capabilities: [String] = []
    /// Why it ended, as told to the members (`remoteEnded`, `unanswered`, `merged`, …).
    var endedReason: String?

    var state: String {
        if ended { return "left" }
        // Joined once two members are connected; until then the callees ring.
        return members.filter { $0.state.isConnected }.count >= 2 ? "joined" : "idle"
    }

    func index(of device: String) -> Int? { members.firstIndex { $0.device == device } }

    /// Members still in it (ringing or connected).
    var present: Int { members.filter { $0.state != .left }.count }

    /// Parties still in it: one per handle, so a user's several ringing devices (issue 36) count once, and a call
    /// whose caller left while only one user's devices ring is over.
    var parties: Int { Set(members.filter { $0.state != .left }.map(\.handle.value)).count }

    /// Ends the conversation for everyone.
    mutating func finish(_ reason: String) {
        ended = true
        endedReason = endedReason ?? reason
        for i in members.indices { members[i].state = .left }
    }

    func json(extra: String = "") -> String {
        var out = "{\"id\":\(JSONText.quote(id)),\"state\":\"\(state)\",\"version\":\(version),\"video\":\(video),"
        out += "\"ended\":\(ended),"
        if let endedReason { out += "\"endedReason\":\(JSONText.quote(endedReason)),"}
        out += "\"capabilities\":[" + capabilities.map(JSONText.quote).joined(separator: ",") + "],"
        out += "\"members\":["
        for (i, m) in members.enumerated() {
            if i > 0 { out += "," }
            out += "{\"device\":\(JSONText.quote(m.device)),\"state\":\"\(m.state.rawValue)\",\"handle\":"
            out += handleJSON(m.handle) + "}"
        }
        // Media flowing: joined, not held (LiveCommunicationKit's activeRemoteMembers).
        out += "],\"activeMembers\":["
        out += members.filter { $0.state.isActive }.map { JSONText.quote($0.device) }.joined(separator: ",")
        out += "]" + extra + "}"
        return out
    }
}

func handleJSON(_ h: Handle) -> String {
    "{\"kind\":\"\(h.kind.rawValue)\",\"value\":\(JSONText.quote(h.value)),\"displayName\":\(JSONText.quote(h.displayName))}"
}

// MARK: - Request bodies

struct RegisterBody: Decodable {
    let id: String
    let handle: Handle
    let apnsToken: String
}

struct StartBody: Decodable {
    let caller: String
    let handles: [Handle]
    let video: Bool?
    let capabilities: [String]?
}

/// The body of every member action: who does it, and the action's own fields.
struct MemberBody: Decodable {
    let device: String
    /// end: why (told to the others), e.g. `unanswered`.
    let reason: String?
    /// merge: the conversation merged into this one.
    let with: String?
    /// unmerge: the member moved out into a conversation of their own with `device`.
    let member: String?
}
