/// Which way RTP travels for a media fault (`sip: { media_direction: callee_to_caller }`,
/// `media_one_way: callee_to_caller`): named by the call's ends, not by a device's socket, because one-way audio is
/// a direction of the call (the relay never opened the callee's audio toward the caller).
public enum MediaFaultDirection: String, Sendable, Equatable, CaseIterable {
    case callerToCallee = "caller_to_callee"
    case calleeToCaller = "callee_to_caller"
    case both

    /// Whether a packet travelling toward the caller (else toward the callee) is of this direction.
    public func covers(towardCaller: Bool) -> Bool {
        switch self {
        case .both: return true
        case .calleeToCaller: return towardCaller
        case .callerToCallee: return !towardCaller
        }
    }
}
