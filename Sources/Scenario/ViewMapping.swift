/// Where a conversation's view sits in the JSON a server sends, and what its words mean (`target.api.view`).
///
/// A view is the server's account of one conversation: its id, its state, a version when the server keeps one,
/// every member with a status, and why it ended. The reference protocol is one such mapping
/// (`ViewMapping.reference`); a team's server is another, read by the same code, so the driver, the final-view
/// check and the history checker see the same `ConversationView` whichever server they drive.
// limits: 16 stored properties, one per field of a view mapping (plain paths and word lists, as YAML names them)
public struct ViewMapping: Sendable, Equatable {
    /// The four LiveCommunicationKit states a conversation or a member can be in, in the words views use for
    /// members (`ringing` is LCK's idle, `held` its paused).
    public static let states = ["idle", "joined", "paused", "left"]

    /// JSON paths inside one view object (`$` is the view itself).
    public var id: String
    public var state: String?
    /// A revision counter under any name. Without one, rules that compare versions cannot run.
    public var version: String?
    /// A boolean that says the conversation ended (besides a state mapped to `left`).
    public var ended: String?
    public var endedReason: String?
    public var members: String
    /// Paths inside one member object.
    public var memberID: String
    public var memberStatus: String
    /// A handle object (`{kind, value, displayName}`) or a plain string; without it, the handle of the device the
    /// member id names (a device id or one of callstorm's phone numbers).
    public var memberHandle: String?
    /// LCK state (`idle`, `joined`, `paused`, `left`) → the server's words for conversations and for members.
    /// Words not listed pass through unchanged.
    public var states: [String: [String]]
    public var memberStates: [String: [String]]
    /// Where the view sits in an action's response (`$` is the body), and the view of the conversation an
    /// unmerge split off, when the response carries it.
    public var response: String
    public var split: String?
    /// Every action's response must carry a view (a response without one is a `bad_response`).
    public var required: Bool
    /// A list of the conversation's capabilities in the server's words, and those words (`CapabilityWords`).
    public var capabilities: String?
    public var capabilityWords: [String: [String]] = [:]

    // 16 stored properties: one per field of a view mapping, all plain paths and word lists.
    public init(id: String = "$.id", state: String? = "$.state", version: String? = nil, ended: String? = nil,
                endedReason: String? = nil, members: String = "$.members", memberID: String = "$.id",
                memberStatus: String = "$.status", memberHandle: String? = nil, states: [String: [String]] = [:],
                memberStates: [String: [String]]? = nil, response: String = "$", split: String? = nil,
                required: Bool = false) {
        self.id = id
        self.state = state
        self.version = version
        self.ended = ended
        self.endedReason = endedReason
        self.members = members
        self.memberID = memberID
        self.memberStatus = memberStatus
        self.memberHandle = memberHandle
        self.states = states
        self.memberStates = memberStates ?? states
        self.response = response
        self.split = split
        self.required = required
    }

    /// The reference protocol's views (docs/PROTOCOL.md): its words are already LCK's member words.
    public static let reference = ViewMapping(
        id: "$.id", state: "$.state", version: "$.version", ended: "$.ended", endedReason: nil,
        members: "$.members", memberID: "$.device", memberStatus: "$.state", memberHandle: "$.handle",
        states: ["left": ["left"]], memberStates: [:], response: "$", split: "$.split", required: true)

    /// The member word (`ringing`, `joined`, `held`, `left`) for a server's member status.
    public func memberWord(_ raw: String) -> String {
        Self.word(raw, memberStates)
    }

    /// The member word for a server's conversation state (`left` when it ended).
    public func stateWord(_ raw: String) -> String {
        Self.word(raw, states)
    }

    private static func word(_ raw: String, _ map: [String: [String]]) -> String {
        for (lck, words) in map where words.contains(raw) {
            switch lck {
            case "idle": return "ringing"
            case "paused": return "held"
            default: return lck
            }
        }
        return raw
    }

    /// Every JSON path the mapping names, with its field's name, for validation.
    public var paths: [(field: String, path: String)] {
        var out: [(String, String)] = [("id", id), ("members", members), ("member.id", memberID),
                                       ("member.status", memberStatus), ("response", response)]
        for (field, path) in [("state", state), ("version", version), ("ended", ended),
                              ("ended_reason", endedReason), ("member.handle", memberHandle), ("split", split),
                              ("capabilities", capabilities)] {
            if let path { out.append((field, path)) }
        }
        return out
    }
}
