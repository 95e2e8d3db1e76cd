/// A fault window: from `at` for `for` (both since the load starts), hitting a share of devices, with faults on
/// the push path, in devices and on the network. Every random choice comes from the scenario seed.
public struct FaultWindow: Sendable, Equatable {
    public var name: String
    public var atNanos: UInt64
    public var forNanos: UInt64
    /// Share of devices the window applies to (chosen by seed; 1 = all).
    public var devices: Double
    /// Push and device faults grow from nothing at `at` to full strength `ramp` later (probabilities and delays
    /// scale linearly); 0 is full strength at once.
    public var rampNanos: UInt64 = 0
    /// The flows whose calls the push and device faults hit; empty hits every call.
    public var flows: [String] = []
    public var push: PushFaults?
    public var device: DeviceFaults?
    public var network: NetworkFaults?
    public var target: TargetFaults?
    /// Faults on SIP devices' signaling (`SIPFaults`).
    public var sip: SIPFaults?

    public init(name: String, atNanos: UInt64, forNanos: UInt64, devices: Double = 1, push: PushFaults? = nil,
                device: DeviceFaults? = nil, network: NetworkFaults? = nil, target: TargetFaults? = nil,
                sip: SIPFaults? = nil) {
        self.name = name
        self.atNanos = atNanos
        self.forNanos = forNanos
        self.devices = devices
        self.push = push
        self.device = device
        self.network = network
        self.target = target
        self.sip = sip
    }

    /// Strength at `sinceLoad` (0…1): 1 without a ramp.
    public func intensity(at sinceLoad: UInt64) -> Double {
        guard rampNanos > 0 else { return 1 }
        guard sinceLoad > atNanos else { return 0 }
        return min(1, Double(sinceLoad - atNanos) / Double(rampNanos))
    }

    /// End of the window, in nanoseconds since the load starts.
    public var endNanos: UInt64 { atNanos + forNanos }

    public func contains(_ nanos: UInt64) -> Bool { nanos >= atNanos && nanos < atNanos + forNanos }

    /// Fault kinds the `faults:` entries accept, per section (each one file in the Chaos module, registered by
    /// this name in its `FaultRegistry`; docs/ADDING-A-FAULT.md).
    public static let pushKinds = ["delay", "drop", "duplicate", "error", "reorder", "brownout", "goaway"]
    /// Keys of a `push:` section that qualify a fault rather than name one.
    public static let pushOptions = ["reorder_hold"]
    public static let deviceKinds = ["report_delay", "offline", "join_delay", "join_failure", "clock_skew",
                                     "socket_drop", "socket_stall"]
    public static let networkKinds = ["latency", "jitter", "bandwidth", "reset", "timeout", "slicer", "limit_data",
                                      "slow_close"]
    /// Keys of a `network:` section that qualify its toxics rather than name one.
    public static let networkOptions = ["direction", "probability", "connections"]
    public static let targetKinds = ["kill", "socket_storm"]
    public static let targetOptions = ["restart_after", "signal"]
    public static let sipKinds = ["loss", "delay", "late_wake", "lost_register"]
    /// Keys of a `sip:` section that qualify `loss` and `delay` rather than name a fault.
    public static let sipOptions = ["direction", "messages"]
}

/// Faults on the way from the gateway to the device (APNs itself misbehaving).
public struct PushFaults: Sendable, Equatable {
    /// Extra time before delivery.
    public var delay: Distribution?
    /// Accepted with 200, never delivered.
    public var drop: Double = 0
    /// Delivered twice.
    public var duplicate: Double = 0
    /// Answered with this APNs status (429, 500, 503, 410) instead of being accepted.
    public var errorStatus: Int = 503
    public var errorRate: Double = 0
    /// Share of pushes held back and delivered right after the device's next push (overtaken by it), or after
    /// `reorderHoldNanos` when no later push comes.
    public var reorder: Double = 0
    public var reorderHoldNanos: UInt64 = 1_000_000_000
    /// For the whole window the gateway refuses every push (503 ServiceUnavailable) or stalls (takes the
    /// stream and answers nothing until the window ends).
    public var brownout: Brownout?
    /// Share of pushes after whose answer the gateway sends HTTP/2 GOAWAY (NO_ERROR) on that connection: the
    /// target's APNs client must open a new one.
    public var goaway: Double = 0

    public enum Brownout: String, Sendable, Equatable, CaseIterable {
        case refuse
        case stall
    }

    public init() {}
}

/// Faults in the simulated app.
public struct DeviceFaults: Sendable, Equatable {
    /// Processing before the VoIP push is reported (a slow app; long ones miss the deadline).
    public var reportDelay: Distribution?
    /// Share of the window's devices that are offline: they get no pushes and their requests fail.
    public var offline: Double = 0
    /// Slow media setup: a join is fulfilled this much later.
    public var joinDelay: Distribution?
    /// Media setup fails: the join action fails after the server accepted it.
    public var joinFailure: Double = 0
    /// Each device the window hits has its clock off by an amount drawn (from the seed, once per device)
    /// uniformly within ± this: the device times it sends (`${device.time}`, the reference join's `reportedAt`)
    /// are off by it.
    public var clockSkewNanos: UInt64 = 0
    /// The device's signaling socket ends (abruptly, or with a close code).
    public var socketDrop: SocketDropFaults?
    /// The device reads nothing from its signaling socket for a while.
    public var socketStall: SocketStallFaults?

    public init() {}
}

/// Faults between devices and target, applied by the TCP fault proxy (Toxiproxy-style toxics).
public struct NetworkFaults: Sendable, Equatable {
    /// Toxic kind → attributes (`latency: 100ms` → ["latency": 100] in ms; probabilities as `toxicity`).
    public var toxics: [String: [String: Double]] = [:]
    /// Which way the toxics act: `downstream` (target → devices, the default, as Toxiproxy's), `upstream` or
    /// `both`.
    public var direction: String = "downstream"
    /// Share of connections each toxic acts on, decided per connection from the seed (`reset` carries its own).
    public var probability: Double = 1
    /// `connections: fresh` (the default): inside the window every device request opens its own connection, as
    /// phones each have their own, so a per-connection probability is a per-request one. `pooled` keeps the
    /// workers' shared keep-alive connections (few, long-lived: a toxic hits all requests on the ones it picks).
    public var freshConnections = true

    public init(toxics: [String: [String: Double]] = [:], direction: String = "downstream", probability: Double = 1,
                freshConnections: Bool = true) {
        self.toxics = toxics
        self.direction = direction
        self.probability = probability
        self.freshConnections = freshConnections
    }
}

/// Faults of the target itself: callstorm kills the reference target it runs as a child process
/// (`target: { embedded: true, process: true }`) when the window opens and starts it again later, or has the
/// in-process reference target drop every event socket at once (`socket_storm`).
public struct TargetFaults: Sendable, Equatable {
    /// Kill the target when the window opens.
    public var kill: Bool = true
    /// When to start it again, after the kill; nil restarts when the window closes.
    public var restartAfterNanos: UInt64?
    /// `KILL` (a crash: nothing is flushed, connections die with RST or FIN) or `TERM` (an orderly stop).
    public var signal: String = "KILL"
    /// Drop every event socket when the window opens (a window with only this sets `kill` false).
    public var socketStorm: SocketStormFaults?

    public init(kill: Bool = true, restartAfterNanos: UInt64? = nil, signal: String = "KILL",
                socketStorm: SocketStormFaults? = nil) {
        self.kill = kill
        self.restartAfterNanos = restartAfterNanos
        self.signal = signal
        self.socketStorm = socketStorm
    }
}
