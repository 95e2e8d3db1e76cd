/// One device's view of a conversation: its state with the legal transitions enforced, and its members.
public struct Conversation: Sendable, Equatable {
    public let uuid: String
    public private(set) var state: ConversationState
    public var localMember: Handle?
    public var members: [Handle]
    /// Members currently connected (members may still be ringing or may have left).
    public var activeRemoteMembers: [Handle]
    public var capabilities: Capabilities
    public private(set) var endedReason: EndedReason?
    /// The highest server version seen, so stale updates can be told apart.
    public var version: Int

    public init(uuid: String, state: ConversationState = .idle, members: [Handle] = [],
                capabilities: Capabilities = [], version: Int = 0) {
        self.uuid = uuid
        self.state = state
        self.members = members
        self.activeRemoteMembers = []
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
