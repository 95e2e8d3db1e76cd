/// Choices LiveCommunicationKit and the conversation model leave to a server. A scenario declares its server's
/// (`target.policy`), the reference target's are built in, and the history checker holds a server to the ones
/// declared; a policy rule with nothing declared is skipped and says so (docs/CHECKER.md).
public struct ServerPolicy: Sendable, Equatable, Codable {
    /// Where the member who split another off (the splitter) stands after an unmerge. The split member and the
    /// splitter always share the new conversation; which side is held is the server's choice.
    public enum Unmerge: String, Sendable, Equatable, Codable, CaseIterable {
        /// The splitter stays active in the group and holds the split-off conversation (the reference target's).
        case holdSplit = "hold-split"
        /// The splitter is active with the split member and holds the group (the seed session's story: Ryan and
        /// Andre go back to their own conversation while Adam and David carry on).
        case holdGroup = "hold-group"
        /// The splitter goes with the split member and leaves the group.
        case leaveGroup = "leave-group"
    }

    /// Nil when undeclared: `unmerge-follows-policy` is then skipped.
    public var unmerge: Unmerge?
    /// Users with several devices (issue 36, `users.ringing_grace`): how long a user's other device may still
    /// ring after one answered or declined; nil when the scenario has no users (`elsewhere-stops-ringing` then
    /// takes 2 s).
    public var elsewhereGraceNanos: UInt64?
    /// `users.on_decline: keep_ringing`: a decline on one device leaves the user's others ringing.
    public var declineKeepsRinging: Bool?

    public init(unmerge: Unmerge? = nil) {
        self.unmerge = unmerge
    }

    /// Nothing declared (a server callstorm did not write, whose scenario says nothing).
    public static let undeclared = ServerPolicy()

    /// The embedded reference target's choices unless told otherwise.
    public static let reference = ServerPolicy(unmerge: .holdSplit)

    /// The keys of `target.policy`, for validation.
    public static let keys = ["unmerge"]
}
