/// One device's view of a conversation: its state with the legal transitions enforced, and its members.
public struct Conversation: Sendable, Equatable {
    public let uuid: String
    public private(set) var state: ConversationState
    public var localMember: Handle?
    public var members: [Handle]
    /// Remote members with media flowing (joined, not held), as LiveCommunicationKit's `activeRemoteMembers`;
    /// none while this device holds the conversation, since no media flow to a held conversation.
    public var activeRemoteMembers: [Handle] {
        get { state == .paused ? [] : joinedRemoteMembers }
        set { joinedRemoteMembers = newValue }
    }
    /// Remote members the server shows joined, whatever this device's own state.
    private var joinedRemoteMembers: [Handle] = []
    /// Remote members that answered and are still in it (joined or held): whom an unmerge can split off.
    public var connectedRemoteMembers: [Handle] = []
    public var capabilities: Capabilities
    public private(set) var endedReason: EndedReason?
    /// The highest server version seen, so stale updates can be told apart.
    public var version: Int

    public init(uuid: String, state: ConversationState = .idle, members: [Handle] = [],
                capabilities: Capabilities = [], version: Int = 0) {
        self.uuid = uuid
        self.state = state
        self.members = members
        self.capabilities = capabilities
        self.version = version
    }

    /// Moves to `next` if LiveCommunicationKit allows it; the state is unchanged otherwise.
    public mutating func move(to next: ConversationState) throws(IllegalTransition) {
        guard state.canMove(to: next) else { throw IllegalTransition(from: state, to: next) }
        state = next
    }

    /// Ends the conversation from any live state; the first reason wins.
    public mutating func end(_ reason: EndedReason) {
        if state == .left { return }
        state = .left
        endedReason = reason
    }
}
