import Determinism
/// A named stream of seeded draws: every decision a fault makes comes from (seed, window, subject, sequence,
/// stream), so two faults never share a draw and adding a fault moves no other fault's decisions.
///
/// A new fault's stream is derived from its name (`DrawStream("push.corrupt")`, a stable FNV-1a hash). The
/// streams below predate names: they keep the salt they were drawn with, so a fixed seed injects exactly the
/// faults it injected before faults had a module of their own. Two pinned streams share a salt (6 and 7, push
/// and join) because they never draw for the same subject and sequence: changing either would move its faults.
public struct DrawStream: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let salt: UInt64

    /// A stream for a new fault, keyed by a stable hash of its name.
    public init(_ name: String) {
        self.name = name
        self.salt = Self.stableHash(name)
    }

    private init(_ name: String, pinned salt: UInt64) {
        self.name = name
        self.salt = salt
    }

    public var description: String { "\(name)#\(salt)" }

    /// FNV-1a over the UTF-8 bytes: the same on every platform and Swift version (unlike `Hasher`, which is
    /// seeded per process).
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    // MARK: - Pinned streams (salts from before named streams)

    public static let pushError = DrawStream("push.error", pinned: 1)
    public static let pushDrop = DrawStream("push.drop", pinned: 2)
    public static let pushDelay = DrawStream("push.delay", pinned: 3)
    public static let pushDuplicate = DrawStream("push.duplicate", pinned: 4)
    public static let reportDelay = DrawStream("device.report_delay", pinned: 5)
    public static let pushReorder = DrawStream("push.reorder", pinned: 6)
    public static let pushGoAway = DrawStream("push.goaway", pinned: 7)
    public static let joinFailure = DrawStream("device.join_failure", pinned: 6)
    public static let joinDelay = DrawStream("device.join_delay", pinned: 7)
    /// Which devices a window with `devices: <share>` hits.
    public static let membership = DrawStream("window.devices", pinned: 0xD0)
    public static let offline = DrawStream("device.offline", pinned: 0x0FF)
    public static let clockSkew = DrawStream("device.clock_skew", pinned: 0xC10C)

    /// Every pinned stream, for the test that pins their salts.
    public static let pinned: [DrawStream] = [
        pushError, pushDrop, pushDelay, pushDuplicate, reportDelay, pushReorder, pushGoAway, joinFailure, joinDelay,
        membership, offline, clockSkew,
    ]

    /// The fault proxy's seed: a stream of the scenario seed of its own ("NETWORK\0"), so adding network faults
    /// does not move any other fault's draws.
    public static func networkSeed(_ seed: UInt64) -> UInt64 { seed ^ 0x4E45_5457_4F52_4B00 }

    /// The seed of the proxy of its own that network window `window` gets when it hits only some devices.
    public static func routedNetworkSeed(_ seed: UInt64, window: Int) -> UInt64 {
        networkSeed(seed) ^ (UInt64(window + 1) &* SeededRandom.golden)
    }
}
