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
    public var device: DeviceFaultSettings?
    public var network: NetworkFaults?
    public var target: TargetFaults?
    /// Faults on SIP devices' signaling (`SIPFaults`).
    public var sip: SIPFaults?

    public init(name: String, atNanos: UInt64, forNanos: UInt64, devices: Double = 1, push: PushFaults? = nil,
                device: DeviceFaultSettings? = nil, network: NetworkFaults? = nil, target: TargetFaults? = nil,
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

    /// Fault kinds the `faults:` entries accept, per section, in the order the registry lists them (each one file
    /// in the Faults module, registered by this name in `FaultRegistry.all`; docs/ADDING-A-FAULT.md): the scenario
    /// decoder knows a key once its fault is registered.
    public static var pushKinds: [String] { FaultRegistry.names(of: .push) }
    /// Keys of a `push:` section that qualify a fault rather than name one.
    public static let pushOptions = ["reorder_hold"]
    public static var deviceKinds: [String] { FaultRegistry.names(of: .device) }
    /// Keys of a `device:` section that qualify the phone's life events rather than name one.
    public static let deviceOptions = ["interrupted_action", "life_after"]
    public static var networkKinds: [String] { FaultRegistry.names(of: .network) }
    /// Keys of a `network:` section that qualify its toxics rather than name one.
    public static let networkOptions = ["direction", "probability", "connections"]
    public static var targetKinds: [String] { FaultRegistry.names(of: .target) }
    public static let targetOptions = ["restart_after", "signal"]
    public static var sipKinds: [String] { FaultRegistry.names(of: .sip) }
    /// Keys of a `sip:` section that qualify `loss` and `delay` rather than name a fault.
    public static let sipOptions = ["direction", "messages", "media_direction"]
}
