/// What the network windows put on the fault proxy, and how the proxy's findings become fault rows. FaultControl's
/// controller owns the proxies and the clock (and turns the proxy's counters into the run's); this is its
/// arithmetic, without the proxy.
public enum NetworkPlan {
    /// Whether a network window hits only some devices (`flows`, `devices`), so it needs a proxy of its own.
    public static func isRouted(_ window: FaultWindow) -> Bool {
        window.network != nil && (!window.flows.isEmpty || window.devices < 1)
    }

    /// The toxics one window puts on the proxy, in the registry's order.
    public static func toxics(of window: FaultWindow, index: Int) -> [ToxicPlan] {
        FaultRegistry.networkFaults(of: window).map { $0.plan(window: window, index: index) }
    }

    /// The windows on the shared proxy (every device's) open at `sinceLoad`.
    public static func openShared(_ windows: [FaultWindow], at sinceLoad: UInt64) -> [Int] {
        windows.indices.filter {
            windows[$0].network != nil && !isRouted(windows[$0]) && windows[$0].contains(sinceLoad)
        }
    }

    /// The `faults.csv` kinds of a window's toxics going on and off the proxy (markers, not faults).
    public static let switchedOn = kindPrefix + "on"
    public static let switchedOff = kindPrefix + "off"
    /// Every network kind starts so (`network.latency`, `network.on`).
    public static let kindPrefix = "network."
    /// The kind the history checker gives a network window none of whose toxics acted.
    public static let windowKind = kindPrefix + "window"

    /// A toxic's name on the proxy: `w3.latency`.
    public static func toxicName(window: Int, kind: String) -> String { "w\(window).\(kind)" }

    /// The window index and toxic kind of a toxic's name (index 0 when the name has none).
    public static func parse(toxicName: String) -> (window: Int, kind: String) {
        let parts = toxicName.split(separator: ".", maxSplits: 1)
        let index = parts.first.flatMap { Int($0.dropFirst()) } ?? 0
        return (index, parts.count > 1 ? String(parts[1]) : toxicName)
    }

    /// The `faults.csv` kind of a toxic that acted on a connection: `network.latency`.
    public static func faultKind(toxicKind: String) -> String { kindPrefix + toxicKind }
}
