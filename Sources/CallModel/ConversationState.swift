/// LiveCommunicationKit's conversation states. `idle` is ringing for an incoming conversation.
public enum ConversationState: String, Sendable, Hashable, Codable, CaseIterable {
    case idle
    case joining
    case joined
    case paused
    case leaving
    case left

    /// The transitions a conversation may take; anything else is a bug in a device or the target.
    public func canMove(to next: ConversationState) -> Bool {
        switch (self, next) {
        case (.idle, .joining), (.idle, .leaving), (.idle, .left): return true
        case (.joining, .joined), (.joining, .leaving), (.joining, .left): return true
        case (.joined, .paused), (.joined, .leaving), (.joined, .left): return true
        case (.paused, .joined), (.paused, .leaving), (.paused, .left): return true
        case (.leaving, .left): return true
        default: return false
        }
    }

    public var isTerminal: Bool { self == .left }
}

/// Why a conversation ended, as `Conversation.EndedReason`.
public enum EndedReason: String, Sendable, Hashable, Codable, CaseIterable {
    case failed
    case remoteEnded
    case unanswered
    case joinedElsewhere
    case declinedElsewhere
    /// The local user ended it (an End action was fulfilled).
    case localEnded
}

/// A rejected transition, with both ends so a report can say what went wrong.
public struct IllegalTransition: Error, Sendable, Equatable, CustomStringConvertible {
    public let from: ConversationState
    public let to: ConversationState
    public var description: String { "illegal conversation transition \(from.rawValue) → \(to.rawValue)" }
}
