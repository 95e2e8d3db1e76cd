/// A network fault: one toxic of the fault proxy (FaultProxy stays the engine; see its CREATING_TOXICS.md for
/// adding a toxic kind). The fault turns a window's `network:` keys into the toxic's plan (`ToxicPlan`), which
/// FaultControl puts on the proxy.
public protocol NetworkFault: OrderedFault {
    /// The proxy's toxic kind it becomes (`ToxicRegistry.kinds`).
    static var toxicKind: String { get }
    /// The toxic's attributes, in the proxy's names and units.
    var attributes: [String: Double] { get }
    /// The direction it acts on when not the window's (a reset hits the whole connection: one way is enough).
    var direction: ToxicPlan.Direction? { get }
}

extension NetworkFault {
    public var direction: ToxicPlan.Direction? { nil }

    /// The report says a network section toxic by toxic from its settings (`FaultDescription`), whatever the fault.
    public static func summary(of window: FaultWindow) -> String? { nil }

    /// The window's share of connections, which a fault with a share of its own (reset) replaces.
    static func share(_ window: FaultWindow) -> Double { window.network?.probability ?? 1 }

    /// The number under `attribute` of the window's `name` toxic, when the window has that toxic.
    static func setting(_ window: FaultWindow, _ name: String, _ attribute: String) -> Double? {
        window.network?.toxics[name]?[attribute]
    }

    /// This fault's toxic for window `index`, named `w<index>.<kind>` so overlapping windows keep theirs.
    func plan(window: FaultWindow, index: Int) -> ToxicPlan {
        let windowDirection = ToxicPlan.Direction(rawValue: window.network?.direction ?? "") ?? .downstream
        var plan = ToxicPlan(name: NetworkPlan.toxicName(window: index, kind: Self.toxicKind), kind: Self.toxicKind,
                             direction: direction ?? windowDirection, toxicity: probability, attributes: attributes)
        // A ramp grows each toxic's share of connections from nothing to full over its length.
        plan.rampNanos = window.rampNanos
        return plan
    }
}
