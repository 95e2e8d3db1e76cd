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
    /// What the last sweep saw of it and since when it has not changed (`ReferenceTarget.sweep`). Kept here, not
    /// in a dictionary of its own: the sweep visits each conversation once a second for its whole retention (60
    /// visits for an ended call), and two lookups by id a visit cost more than the call's own requests' routing.
    /// Not part of what the conversation is: equality leaves it out.
    var swept: (version: Int, ended: Bool, since: UInt64)?

    static func == (a: ServerConversation, b: ServerConversation) -> Bool {
        a.id == b.id && a.members == b.members && a.ended == b.ended && a.version == b.version && a.video == b.video
            && a.capabilities == b.capabilities && a.endedReason == b.endedReason
    }

    var state: String { stateWord.description }

    /// `state` as static bytes, counted without building the filtered members.
    var stateWord: StaticString {
        if ended { return "left" }
        // Joined once two members are connected; until then the callees ring.
        var connected = 0
        for i in members.indices where members[i].state.isConnected { connected += 1 }
        return connected >= 2 ? "joined" : "idle"
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
        appendJSON(to: &out, extra: extra)
        return String(decoding: out, as: UTF8.self)
    }

    /// `json(extra:)`'s bytes, appended to `out`. Fixed text goes in as `StaticString` bytes (one memcpy each):
    /// a String literal's `.utf8` or an enum's `rawValue` took `Array.append(contentsOf:)`'s generic path,
    /// ~40 % of a view's ~10,000 instructions (issue 33, the capacity flow's profile).
    func appendJSON(to out: inout [UInt8], extra: String = "") {
        out.reserveCapacity(out.count + 256 + 160 * members.count + extra.utf8.count)
        out.add("{\"id\":")
        JSONText.appendQuoted(id, to: &out)
        out.add(",\"state\":\"")
        out.add(stateWord)
        out.add("\",\"version\":")
        JSONText.appendInteger(Int64(version), to: &out)
        out.add(video ? ",\"video\":true," : ",\"video\":false,")
        out.add(ended ? "\"ended\":true," : "\"ended\":false,")
        if let endedReason {
            out.add("\"endedReason\":")
            JSONText.appendQuoted(endedReason, to: &out)
            out.add(",")
        }
        out.add("\"capabilities\":[")
        for i in capabilities.indices {
            if i > 0 { out.add(",") }
            JSONText.appendQuoted(capabilities[i], to: &out)
        }
        out.add("],\"members\":[")
        for i in members.indices {
            if i > 0 { out.add(",") }
            out.add("{\"device\":")
            JSONText.appendQuoted(members[i].device, to: &out)
            out.add(",\"state\":\"")
            out.add(members[i].state.word)
            out.add("\",\"handle\":")
            appendHandleJSON(members[i].handle, to: &out)
            out.add("}")
        }
        // Media flowing: joined, not held (LiveCommunicationKit's activeRemoteMembers).
        out.add("],\"activeMembers\":[")
        var first = true
        for i in members.indices where members[i].state.isActive {
            if !first { out.add(",") }
            first = false
            JSONText.appendQuoted(members[i].device, to: &out)
        }
        out.add("]")
        if !extra.isEmpty { out.append(contentsOf: extra.utf8) }
        out.add("}")
    }
}

extension MemberState {
    /// `rawValue` as static bytes (the enum's `rawValue` builds a String each time).
    var word: StaticString {
        switch self {
        case .ringing: "ringing"
        case .joined: "joined"
        case .held: "held"
        case .left: "left"
        }
    }
}

extension Handle.Kind {
    /// `rawValue` as static bytes.
    var word: StaticString {
        switch self {
        case .phoneNumber: "phoneNumber"
        case .emailAddress: "emailAddress"
        case .generic: "generic"
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends a static text's bytes with one copy.
    mutating func add(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// A handle as the API writes it (`{"kind","value","displayName"}`), appended.
func appendHandleJSON(_ h: Handle, to out: inout [UInt8]) {
    out.add("{\"kind\":\"")
    out.add(h.kind.word)
    out.add("\",\"value\":")
    JSONText.appendQuoted(h.value, to: &out)
    out.add(",\"displayName\":")
    JSONText.appendQuoted(h.displayName, to: &out)
    out.append(UInt8(ascii: "}"))
}
