/// A flow role played by a party callstorm does not simulate (a flow's `outside:`): SIPp as a caller, a PSTN
/// gateway, a call the server starts itself, an IVR or an echo service as the callee. callstorm does nothing for
/// such a role and measures only its own devices; what the outside party does is observed, not simulated.
///
/// - An outside **first role** (the caller side) places the calls: the flow is not planned by `load`; it starts
///   when a call nobody planned reaches an idle device (a VoIP push or a SIP INVITE), on that device, with the
///   conversation `main` bound to that call.
/// - An outside **callee** is called by its SIP `uri` (SIP devices only): `start` INVITEs the URI through the
///   registrar.
public struct OutsideParty: Sendable, Equatable {
    /// The SIP URI a `start` to this role calls (`sip:echo@127.0.0.1:5070`); nil for a party that only calls in.
    public var uri: String?

    public init(uri: String? = nil) {
        self.uri = uri
    }
}

extension Flow {
    /// The conversation an outside caller's call is bound to when the flow starts.
    public static let outsideConversation = "main"

    /// Whether the flow is started by an outside party (its first role is outside): calls arrive, none is planned.
    public var startsOutside: Bool { roles.first.map { outside[$0] != nil } ?? false }

    /// The roles callstorm's devices play, in order (every role but the outside ones).
    public var deviceRoles: [String] { roles.filter { outside[$0] == nil } }
}

extension Scenario {
    /// Whether any flow of the mix is started by an outside party (the devices wait for calls nobody planned).
    public var expectsOutsideCalls: Bool { mix.contains { flow(named: $0.flow)?.startsOutside ?? false } }

    /// Whether every flow of the mix is started by an outside party: `load` plans nothing, `duration` is how long
    /// the devices wait.
    public var onlyOutsideCalls: Bool { !mix.isEmpty && mix.allSatisfy { flow(named: $0.flow)?.startsOutside ?? false } }
}
