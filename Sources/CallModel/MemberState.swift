/// How one member stands in a conversation on the server: the words the reference protocol uses, and the words a
/// view mapping turns a foreign server's statuses into. The reference target, the driver's views and the
/// history checker all read member states through this one type.
public enum MemberState: String, Sendable, Hashable, Codable, CaseIterable {
    case ringing, joined, held, left

    /// Connected to the conversation (held members stay connected).
    public var isActive: Bool { self == .joined || self == .held }
}
