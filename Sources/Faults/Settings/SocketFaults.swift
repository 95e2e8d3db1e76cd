import Quantities

/// `device: { socket_drop: … }`: the device's signaling socket ends in the window, as a phone's connection does
/// when it changes networks or the radio sleeps. Without `code` it ends abruptly (no closing handshake: the
/// device sees a lost socket); with `code` the device sends a close frame carrying it (1001 "going away" is what
/// an app sends when the system suspends it). Either way the device reconnects after its `socket_reconnect`
/// backoff.
public struct SocketDropFaults: Sendable, Equatable {
    /// Share of the window's devices whose socket drops once, at an instant drawn from the seed.
    public var probability: Double
    /// The close code sent, or nil for an abrupt end.
    public var code: UInt16?
    /// Only devices in a call in one of these roles at the drop's instant; empty: any device.
    public var roles: [String] = []

    public init(probability: Double, code: UInt16? = nil, roles: [String] = []) {
        self.probability = probability
        self.code = code
        self.roles = roles
    }
}

/// `device: { socket_stall: … }`: the device stops reading its socket for `duration` (an app whose thread is
/// blocked, a phone in a dead zone that keeps its TCP connection): the server's frames wait in the kernel's
/// buffers and arrive late, all at once, when reading resumes.
public struct SocketStallFaults: Sendable, Equatable {
    /// Share of the window's devices that stall once, at an instant drawn from the seed.
    public var probability: Double
    /// How long the device reads nothing (sampled once per device).
    public var duration: Distribution
    /// Only devices in a call in one of these roles at the stall's instant; empty: any device.
    public var roles: [String] = []

    public init(probability: Double = 1, duration: Distribution, roles: [String] = []) {
        self.probability = probability
        self.duration = duration
        self.roles = roles
    }
}

/// `target: { socket_storm: … }`: when the window opens the reference target ends every event socket at once (a
/// server restart, a load balancer draining): abruptly, or with a closing handshake carrying `code`. Every
/// device with a socket reconnects at once, spread only by its seeded backoff: a reconnect storm.
public struct SocketStormFaults: Sendable, Equatable {
    public var code: UInt16?

    public init(code: UInt16? = nil) {
        self.code = code
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4): 1005, 1006 and 1015 name conditions and are never
    /// sent; codes under 1000, unassigned protocol codes and 5000+ are invalid on the wire.
    public static func isSendable(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
