/// What the server says about a conversation at one version: every member and how they stand.
/// Devices fold these into their own view; the history checker reads the same views back from history.jsonl and
/// compares them with what devices saw.
public struct ConversationView: Sendable, Equatable, Identifiable {
    public struct Member: Sendable, Equatable {
        public var device: String
        /// Nil where the source names no handle: history.jsonl records devices and their states only.
        public var handle: Handle?
        /// `ringing`, `joined`, `held` or `left` (`MemberState`'s words), kept as the server's text so that a
        /// mapped foreign server's view round-trips unchanged.
        public var state: String

        public init(device: String, handle: Handle?, state: String) {
            self.device = device
            self.handle = handle
            self.state = state
        }

        public init(device: String, handle: Handle? = nil, state: MemberState) {
            self.init(device: device, handle: handle, state: state.rawValue)
        }

        /// The state as a `MemberState`; nil for a word that is not one.
        public var memberState: MemberState? { MemberState(rawValue: state) }

        /// Media flowing (joined, not held): an active remote member in LiveCommunicationKit's sense.
        public var isActive: Bool { memberState?.isActive ?? false }

        /// Joined or held: answered and still in it.
        public var isConnected: Bool { memberState?.isConnected ?? false }
    }

    public var uuid: String
    public var version: Int
    public var ended: Bool
    public var members: [Member]
    /// Why it ended, in the server's words, when its views say.
    public var endedReason: String?
    /// False when the server's views carry no version (a mapping without one): `version` is then always 0, and
    /// the checker's version rules cannot run.
    public var hasVersion = true
    /// What the server says the conversation can do now (`target.api.view.capabilities`); nil when its views
    /// do not say. A device applies it as a `Conversation.Update`.
    public var capabilities: Capabilities?

    public init(uuid: String, version: Int, ended: Bool = false, members: [Member]) {
        self.uuid = uuid
        self.version = version
        self.ended = ended
        self.members = members
    }

    /// The conversation's id on the server (its UUID).
    public var id: String { uuid }

    /// The handles other than `device` still in the conversation (ringing or connected).
    public func remoteMembers(excluding device: String) -> [Handle] {
        members.filter { $0.device != device && $0.state != "left" }.compactMap(\.handle)
    }

    /// The handles whose media reach `device`: the others joined (not held), and none while `device` itself holds
    /// the conversation (its own held conversation has no active remote members).
    public func activeRemoteMembers(excluding device: String) -> [Handle] {
        if memberState(of: device) == .held { return [] }
        return members.filter { $0.device != device && $0.isActive }.compactMap(\.handle)
    }

    /// The handles other than `device` that answered and are still in it (joined or held).
    public func connectedRemoteMembers(excluding device: String) -> [Handle] {
        members.filter { $0.device != device && $0.isConnected }.compactMap(\.handle)
    }

    public func state(of device: String) -> String? { members.first { $0.device == device }?.state }

    /// How `device` stands; a device that is not listed is `left`.
    public func memberState(of device: String) -> MemberState {
        for m in members where m.device == device { return m.memberState ?? .left }
        return .left
    }

    /// Devices still in it (ringing or connected).
    public var present: [String] { members.filter { $0.state != "left" }.map(\.device) }
}
