/// Where a fault acts: the five sections of a scenario's fault window.
public enum FaultFamily: String, Sendable, CaseIterable {
    /// Between the push gateway and the device (APNs misbehaving).
    case push
    /// In the simulated app.
    case device
    /// Between devices and the target (the fault proxy's toxics).
    case network
    /// The target process itself.
    case target
    /// SIP devices' signaling: datagrams at their sockets, and their push wake-up path.
    case sip
}

/// One kind of fault, in Toxiproxy's shape: one small type per kind, made from a window's settings, with its
/// probability and a no-op fallback (a window that does not ask for the fault makes none), registered by the
/// names a scenario uses (`FaultRegistry`). How a fault acts depends on its family: see `PushPathFault`,
/// `DeviceFault`, `NetworkFault` and `TargetKillFault`.
public protocol Fault: Sendable {
    /// The keys of the window's section that ask for it (`drop`; the latency toxic answers `latency` and `jitter`).
    static var names: [String] { get }
    static var family: FaultFamily { get }
    /// The fault as `window` sets it, or nil when the window does not ask for it (the no-op fallback).
    init?(window: FaultWindow)
    /// Share of its subjects it hits at full strength (1 for a fault that hits every subject, as a delay).
    var probability: Double { get }
    /// What `window` sets it to do, in the report's fault table's words (`drop 10%`); nil when the window does not
    /// set it. `FaultDescription` joins a section's in the registry's order.
    static func summary(of window: FaultWindow) -> String?
}

/// That one fault of one window acted: a row of `faults.csv` and a `faults.<kind>` counter.
public struct FaultNote: Sendable, Equatable {
    public let window: String
    /// `push.dropped`, `device.join_failed`: the row's kind and the counter's name after `faults.`.
    public let kind: String

    public init(window: String, kind: String) {
        self.window = window
        self.kind = kind
    }
}

/// A fault that decides on a path with others (a push, a join, a socket's plan, a SIP datagram or wake, the
/// toxics on a proxy): `precedence` is its place in that path's deciding order, lower first, so the registry is
/// one list and each path is read from it (`FaultRegistry`).
public protocol OrderedFault: Fault {
    static var precedence: Int { get }
}
