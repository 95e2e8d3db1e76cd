import Scenario

/// Every fault kind by the names a scenario's `faults:` windows use, per family, in the order they decide.
/// The scenario decoder validates names against `FaultWindow`'s lists; a test pins that every one of them is
/// registered here and nothing else is.
public enum FaultRegistry {
    /// The push path, in deciding order: a GOAWAY first (it follows the answer, whatever it is), then an
    /// offline phone, an error answer and a drop (each seals the push), then delay, duplicate and reorder.
    public static let pushPath: [any PushPathFault.Type] = [
        PushGoAwayFault.self, OfflineFault.self, PushErrorFault.self, PushDropFault.self, PushDelayFault.self,
        PushDuplicateFault.self, PushReorderFault.self,
    ]
    public static let joinPath: [any JoinFault.Type] = [JoinFailureFault.self, JoinDelayFault.self]
    /// Socket faults, in the order a device's plan lists two at the same instant.
    public static let socketPath: [any SocketFault.Type] = [SocketDropFault.self, SocketStallFault.self]
    /// SIP message faults, in deciding order: a loss seals the datagram's fate, a delay does not.
    public static let sipMessagePath: [any SIPMessageFault.Type] = [SIPLossFault.self, SIPDelayFault.self]
    /// SIP wake-up faults, in deciding order: a lost REGISTER first (a late one would be lost too).
    public static let sipWakePath: [any SIPWakeFault.Type] = [LostRegisterFault.self, LateWakeFault.self]
    /// Network toxics in the order they sit on the proxy.
    public static let network: [any NetworkFault.Type] = [
        LatencyFault.self, BandwidthFault.self, SlicerFault.self, LimitDataFault.self, SlowCloseFault.self,
        TimeoutFault.self, ResetFault.self,
    ]

    /// Every registered kind once.
    public static let all: [any Fault.Type] = [
        PushGoAwayFault.self, PushErrorFault.self, PushDropFault.self, PushDelayFault.self, PushDuplicateFault.self,
        PushReorderFault.self, PushBrownoutFault.self,
        OfflineFault.self, ReportDelayFault.self, JoinFailureFault.self, JoinDelayFault.self, ClockSkewFault.self,
        SocketDropFault.self, SocketStallFault.self,
    ] + network.map { $0 as any Fault.Type } + [TargetKillFault.self, SocketStormFault.self]
        + sipMessagePath.map { $0 as any Fault.Type } + sipWakePath.map { $0 as any Fault.Type }

    /// The kind a family's scenario key names; nil when none is registered.
    public static func kind(_ name: String, in family: FaultFamily) -> (any Fault.Type)? {
        all.first { $0.family == family && $0.names.contains(name) }
    }

    /// Every scenario key of a family.
    public static func names(of family: FaultFamily) -> Set<String> {
        Set(all.filter { $0.family == family }.flatMap { $0.names })
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
