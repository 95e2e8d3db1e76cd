/// How one member stands in a conversation on the server: the words the reference protocol uses, and the words a
/// view mapping turns a foreign server's statuses into. The reference target, the driver's views and the
/// history checker all read member states through this one type.
public enum MemberState: String, Sendable, Hashable, Codable, CaseIterable {
    case ringing, joined, held, left

    /// Media flowing: LiveCommunicationKit's `activeRemoteMembers` are "only those with media actively flowing"
    /// (the seed session), so a held member is a member but not an active one.
    public var isActive: Bool { self == .joined }

    /// Answered and not gone: joined or held. What merge and unmerge need of a member, and what keeps a
    /// conversation connected.
    public var isConnected: Bool { self == .joined || self == .held }
}
