/// Every fault kind, registered once, by the names a scenario's `faults:` windows use. Adding a fault is one line
/// in `all`: the scenario decoder's known keys (`FaultWindow.pushKinds` …) and each path's deciding list are read
/// from it, so nothing else lists the fault. A test pins both orders.
public enum FaultRegistry {
    /// Every fault kind once. Within a family the order is the one the scenario decoder lists keys in (its
    /// messages name them so); the order a path decides in is each fault's own `precedence`.
    public static let all: [any Fault.Type] = [
        PushDelayFault.self, PushDropFault.self, PushDuplicateFault.self, PushErrorFault.self, PushReorderFault.self,
        PushBrownoutFault.self, PushGoAwayFault.self,
        ReportDelayFault.self, OfflineFault.self, JoinDelayFault.self, JoinFailureFault.self, ClockSkewFault.self,
        SocketDropFault.self, SocketStallFault.self,
        InterruptedFault.self, ManagerResetFault.self, RelaunchFault.self, FilteredFault.self,
        LatencyFault.self, BandwidthFault.self, ResetFault.self, TimeoutFault.self, SlicerFault.self,
        LimitDataFault.self, SlowCloseFault.self,
        TargetKillFault.self, SocketStormFault.self,
        SIPLossFault.self, SIPDelayFault.self, LateWakeFault.self, LostRegisterFault.self,
        MediaOneWayFault.self, MediaLossFault.self, MediaDelayFault.self,
    ]

    /// The push path, in deciding order: a GOAWAY first (it follows the answer, whatever it is), then an
    /// offline phone, an error answer and a drop (each seals the push), then delay, duplicate and reorder.
    public static let pushPath: [any PushPathFault.Type] = path()
    public static let joinPath: [any JoinFault.Type] = path()
    /// Socket faults, in the order a device's plan lists two at the same instant.
    public static let socketPath: [any SocketFault.Type] = path()
    /// SIP message faults, in deciding order: a loss seals the datagram's fate, a delay does not.
    public static let sipMessagePath: [any SIPMessageFault.Type] = path()
    /// SIP wake-up faults, in deciding order: a lost REGISTER first (a late one would be lost too).
    public static let sipWakePath: [any SIPWakeFault.Type] = path()
    /// RTP faults, in deciding order: a silenced direction first, then loss (each seals the packet), then delay.
    public static let mediaPacketPath: [any MediaPacketFault.Type] = path()
    /// The phone's life events, in deciding order: an interruption, a reset, a relaunch, a filter.
    public static let lifePath: [any LifeFault.Type] = path()
    /// Network toxics in the order they sit on the proxy.
    public static let network: [any NetworkFault.Type] = path()

    /// The registered kinds of one path (those that are a `Kind`) by `precedence`; ties keep the registry's order.
    private static func path<Kind>() -> [Kind] {
        all.compactMap { $0 as? any OrderedFault.Type }.enumerated()
            .sorted { ($0.element.precedence, $0.offset) < ($1.element.precedence, $1.offset) }
            .compactMap { $0.element as? Kind }
    }

    /// The kind a family's scenario key names; nil when none is registered.
    public static func kind(_ name: String, in family: FaultFamily) -> (any Fault.Type)? {
        all.first { $0.family == family && $0.names.contains(name) }
    }

    /// Every scenario key of a family, in the registry's order.
    public static func names(of family: FaultFamily) -> [String] {
        all.filter { $0.family == family }.flatMap { $0.names }
    }

    /// The push-path faults `window` asks for, in deciding order.
    static func pushPath(of window: FaultWindow) -> [any PushPathFault] {
        pushPath.compactMap { $0.init(window: window) }
    }

    static func joinFaults(of window: FaultWindow) -> [any JoinFault] {
        joinPath.compactMap { $0.init(window: window) }
    }

    static func networkFaults(of window: FaultWindow) -> [any NetworkFault] {
        network.compactMap { $0.init(window: window) }
    }
}
