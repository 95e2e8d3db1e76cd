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
    /// Counted in place (at most 16 members): the filtered array, the mapped one and the Set of values it made
    /// cost ~1,400 instructions an end.
    var parties: Int {
        var count = 0
        for i in members.indices where members[i].state != .left {
            let value = members[i].handle.value
            var seen = false
            for j in 0..<i where members[j].state != .left && members[j].handle.value == value {
                seen = true
                break
            }
            if !seen { count += 1 }
        }
        return count
    }

    /// Ends the conversation for everyone.
    mutating func finish(_ reason: String) {
        ended = true
        endedReason = endedReason ?? reason
        for i in members.indices { members[i].state = .left }
    }

    /// The conversation as the API answers it, written straight into the String's storage (`ViewWriter`): the
    /// byte array it was appended to, piece by piece, and then copied into a String cost ~7,700 instructions a
    /// view, four views a call in the capacity flow (issue 33).
    func json(extra: String = "") -> String {
        Self.text(of: self, extra: extra)
    }

    /// Borrowed, not captured: a closure that captured `self` copied the conversation (eight retains and
    /// releases a view).
    private static func text(of c: borrowing ServerConversation, extra: String) -> String {
        String(unsafeUninitializedCapacity: c.jsonBound(extra: extra)) { buffer in
            var w = ViewWriter(buffer.baseAddress!)
            c.write(to: &w, extra: extra)
            return w.count
        }
    }

    /// `json(extra:)` as bytes, which is what the answers, the pushes and the event sockets send: a String made
    /// of it is checked as UTF-8 (~2,000 instructions a view) and copied back into bytes for the answer.
    /// Not inlined: inlined into `mutate`, the writer's two reads of the conversation each copied it (a retain and
    /// a release of every field); called, it is borrowed.
    @inline(never)
    func jsonBytes(extra: String = "") -> [UInt8] {
        Self.bytes(of: self, extra: extra)
    }

    private static func bytes(of c: borrowing ServerConversation, extra: String) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: c.jsonBound(extra: extra)) { buffer, written in
            var w = ViewWriter(buffer.baseAddress!)
            c.write(to: &w, extra: extra)
            written = w.count
        }
    }

    /// The most bytes `write(to:extra:)` writes: the fixed pieces (under 200 bytes) and, per member, its own
    /// (under 100) plus its texts' bounds (the device twice: members and activeMembers).
    private func jsonBound(extra: String) -> Int {
        var n = 256 &+ ViewWriter.bound(id) &+ extra.utf8.count
        if let endedReason { n &+= ViewWriter.bound(endedReason) }
        for i in capabilities.indices { n &+= ViewWriter.bound(capabilities[i]) &+ 1 }
        for i in members.indices {
            let h = members[i].handle
            n &+= 128 &+ 2 &* ViewWriter.bound(members[i].device) &+ ViewWriter.bound(h.value)
                &+ ViewWriter.bound(h.displayName)
        }
        return n
    }

    /// `json(extra:)`'s bytes; `out` holds `jsonBound(extra:)` bytes at least.
    private func write(to out: inout ViewWriter, extra: String) {
        out.raw("{\"id\":")
        out.quoted(id)
        out.raw(",\"state\":\"")
        out.raw(stateWord)
        out.raw("\",\"version\":")
        out.integer(version)
        out.raw(video ? ",\"video\":true," : ",\"video\":false,")
        out.raw(ended ? "\"ended\":true," : "\"ended\":false,")
        if let endedReason {
            out.raw("\"endedReason\":")
            out.quoted(endedReason)
            out.raw(",")
        }
        out.raw("\"capabilities\":[")
        for i in capabilities.indices {
            if i > 0 { out.raw(",") }
            out.quoted(capabilities[i])
        }
        out.raw("],\"members\":[")
        for i in members.indices {
            if i > 0 { out.raw(",") }
            out.raw("{\"device\":")
            out.quoted(members[i].device)
            out.raw(",\"state\":\"")
            out.raw(members[i].state.word)
            out.raw("\",\"handle\":")
            writeHandle(members[i].handle, to: &out)
            out.raw("}")
        }
        // Media flowing: joined, not held (LiveCommunicationKit's activeRemoteMembers).
        out.raw("],\"activeMembers\":[")
        var first = true
        for i in members.indices where members[i].state.isActive {
            if !first { out.raw(",") }
            first = false
            out.quoted(members[i].device)
        }
        out.raw("]")
        if !extra.isEmpty { out.verbatim(extra) }
        out.raw("}")
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

/// A handle as the API writes it (`{"kind","value","displayName"}`): under 50 bytes and its texts' bounds.
func writeHandle(_ h: Handle, to out: inout ViewWriter) {
    out.raw("{\"kind\":\"")
    out.raw(h.kind.word)
    out.raw("\",\"value\":")
    out.quoted(h.value)
    out.raw(",\"displayName\":")
    out.quoted(h.displayName)
    out.byte(UInt8(ascii: "}"))
}
