import CallModel

/// A device as the reference target knows it after `POST /v1/devices`.
struct RegisteredDevice: Sendable {
    let id: String
    let handle: Handle
    let apnsToken: String
}

/// A member's standing in one conversation on the server.
enum MemberState: String, Sendable {
    case ringing
    case joined
    case left
}

struct ServerMember: Sendable {
    let device: String
    let handle: Handle
    var state: MemberState
}

/// The server's record of a conversation. `version` goes up by one on every change, so devices and the checker
/// can order what they saw.
struct ServerConversation: Sendable {
    let id: String
    var members: [ServerMember]
    var ended = false
    var version = 1
    let video: Bool

    var state: String {
        if ended { return "left" }
        return members.contains { $0.state == .joined && $0.device != members.first?.device } ? "joined" : "idle"
    }

    func json() -> String {
        var out = "{\"id\":\(JSONText.quote(id)),\"state\":\"\(state)\",\"version\":\(version),\"video\":\(video),"
        out += "\"members\":["
        for (i, m) in members.enumerated() {
            if i > 0 { out += "," }
            out += "{\"device\":\(JSONText.quote(m.device)),\"state\":\"\(m.state.rawValue)\",\"handle\":"
            out += handleJSON(m.handle) + "}"
        }
        out += "],\"activeMembers\":["
        out += members.filter { $0.state == .joined }.map { JSONText.quote($0.device) }.joined(separator: ",")
        out += "]}"
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
}

struct MemberBody: Decodable {
    let device: String
}
