/// What the server says about a conversation at one version: every member and how they stand.
/// Devices fold these into their own view; the checker compares the two.
public struct ConversationView: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var device: String
        public var handle: Handle
        /// `ringing`, `joined`, `held` or `left`.
        public var state: String

        public init(device: String, handle: Handle, state: String) {
            self.device = device
            self.handle = handle
            self.state = state
        }

        /// Connected to the conversation (held members stay connected).
        public var isActive: Bool { state == "joined" || state == "held" }
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

    public init(uuid: String, version: Int, ended: Bool, members: [Member]) {
        self.uuid = uuid
        self.version = version
        self.ended = ended
        self.members = members
    }

    /// The handles other than `device` still in the conversation (ringing or connected).
    public func remoteMembers(excluding device: String) -> [Handle] {
        members.filter { $0.device != device && $0.state != "left" }.map(\.handle)
    }

    public func activeRemoteMembers(excluding device: String) -> [Handle] {
        members.filter { $0.device != device && $0.isActive }.map(\.handle)
    }

    public func state(of device: String) -> String? { members.first { $0.device == device }?.state }
}
