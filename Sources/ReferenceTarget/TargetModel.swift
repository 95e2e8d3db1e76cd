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

    /// The conversation as the API answers it. Appended to bytes (`JSONText.appendQuoted`): the String appends
    /// and interpolations it replaces cost ~22,000 instructions a view, twice per call start.
    func json(extra: String = "") -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256 + 160 * members.count + extra.utf8.count)
        func add(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        add("{\"id\":")
        JSONText.appendQuoted(id, to: &out)
        add(",\"state\":\"")
        out.append(contentsOf: state.utf8)
        add("\",\"version\":")
        JSONText.appendInteger(Int64(version), to: &out)
        add(video ? ",\"video\":true," : ",\"video\":false,")
        add(ended ? "\"ended\":true," : "\"ended\":false,")
        if let endedReason {
            add("\"endedReason\":")
            JSONText.appendQuoted(endedReason, to: &out)
            add(",")
        }
        add("\"capabilities\":[")
        for (i, capability) in capabilities.enumerated() {
            if i > 0 { add(",") }
            JSONText.appendQuoted(capability, to: &out)
        }
        add("],\"members\":[")
        for i in members.indices {
            if i > 0 { add(",") }
            add("{\"device\":")
            JSONText.appendQuoted(members[i].device, to: &out)
            add(",\"state\":\"")
            out.append(contentsOf: members[i].state.rawValue.utf8)
            add("\",\"handle\":")
            appendHandleJSON(members[i].handle, to: &out)
            add("}")
        }
        // Media flowing: joined, not held (LiveCommunicationKit's activeRemoteMembers).
        add("],\"activeMembers\":[")
        var first = true
        for i in members.indices where members[i].state.isActive {
            if !first { add(",") }
            first = false
            JSONText.appendQuoted(members[i].device, to: &out)
        }
        add("]")
        out.append(contentsOf: extra.utf8)
        add("}")
        return String(decoding: out, as: UTF8.self)
    }
}

/// `handleJSON(h)`'s bytes, appended.
func appendHandleJSON(_ h: Handle, to out: inout [UInt8]) {
    out.append(contentsOf: "{\"kind\":\"".utf8)
    out.append(contentsOf: h.kind.rawValue.utf8)
    out.append(contentsOf: "\",\"value\":".utf8)
    JSONText.appendQuoted(h.value, to: &out)
    out.append(contentsOf: ",\"displayName\":".utf8)
    JSONText.appendQuoted(h.displayName, to: &out)
    out.append(UInt8(ascii: "}"))
}

func handleJSON(_ h: Handle) -> String {
    "{\"kind\":\"\(h.kind.rawValue)\",\"value\":\(JSONText.quote(h.value)),\"displayName\":\(JSONText.quote(h.displayName))}"
}
