/// A flow's `expect:`: the ways its calls may end unanswered and still be what the flow is for (a declined call, a
/// caller who gives up, a busy service). A call of such a flow that ends unanswered one of these ways completes, as
/// a declared outcome (`calls.unanswered.<way>`); one that ends unanswered any other way fails, named by how
/// (`calls.failed.sip_486`). A flow without `expect:` expects every call it places to be answered.
public struct ExpectedOutcome: Sendable, Equatable {
    /// How a call can end before anyone answered it.
    public enum Unanswered: String, Sendable, CaseIterable {
        /// The callee declined it: a `decline` step, or a SIP 603 / 600 to the caller's INVITE.
        case declined
        /// The caller ended it first: an `end` before the answer (a SIP CANCEL, answered 487).
        case cancelled
        /// The call was refused with a final status: a SIP 486 Busy Here, 480, 404, the proxy's 408, ….
        case refused
    }

    /// The ways a call may end unanswered as this flow declares.
    public var unanswered: [Unanswered]
    /// The SIP statuses a `declined` or `refused` end may carry; empty: any.
    public var statuses: [Int]

    public init(unanswered: [Unanswered], statuses: [Int] = []) {
        self.unanswered = unanswered
        self.statuses = statuses
    }

    /// Whether a call that ended unanswered `way` (with SIP `status`, when the protocol gave one) is what the
    /// flow declares.
    public func allows(_ way: Unanswered, status: Int? = nil) -> Bool {
        guard unanswered.contains(way) else { return false }
        guard let status, !statuses.isEmpty else { return true }
        return statuses.contains(status)
    }
}
