import CallModel
import Determinism
import Scenario

/// How a simulated device is named to the target: id, handle and APNs token, all derived from its index and the
/// scenario seed, so the push gateway can route a token back to its device without a lookup table.
public struct DeviceIdentity: Sendable, Equatable {
    public let index: Int
    public let id: String
    public let handle: Handle
    public let apnsToken: String
    /// The user this device belongs to (`user-N`, N its first device's index) when the scenario has `users`;
    /// nil when every device is its own user. The handle is the user's: every device of a user shares it.
    public let user: String?

    /// `userLead`: the index of the first device of this device's user (`users:`), whose handle the user has.
    public init(index: Int, seed: UInt64, handles: HandleBook? = nil, userLead: Int? = nil) {
        self.index = index
        self.id = "dev-\(index)"
        self.user = userLead.map { "user-\($0)" }
        let named = userLead ?? index
        self.handle = handles?.handle(index: named, user: userLead != nil) ?? Self.handle(index: named)
        self.apnsToken = Self.token(index: index, seed: seed)
    }

    /// 64 hex digits: the index in the first 16, a seeded hash in the other 48 (so tokens look like real ones
    /// and a guessed token is refused).
    public static func token(index: Int, seed: UInt64) -> String {
        var out = hex16(UInt64(index))
        var random = SeededRandom(splitMix: seed ^ (UInt64(index) &* SeededRandom.golden))
        for _ in 0..<3 { out += hex16(random.next()) }
        return out
    }

    /// The device index a token names, if it is one of ours for this seed. Runs on the push gateway's thread for
    /// every push: the token's hex is read into words and compared with the seeded hash's, with no String built
    /// (the token rendered again and lower-cased cost ~12,000 instructions a push).
    public static func index(ofToken token: String, seed: UInt64, deviceCount: Int) -> Int? {
        var token = token
        return token.withUTF8 { bytes -> Int? in
            guard bytes.count == 64, let value = hexWord(bytes, at: 0), value < UInt64(deviceCount) else { return nil }
            let index = Int(value)
            var random = SeededRandom(splitMix: seed ^ (UInt64(index) &* SeededRandom.golden))
            for word in 1...3 {
                guard hexWord(bytes, at: word * 16) == random.next() else { return nil }
            }
            return index
        }
    }

    /// The 16 hex digits (either case) at `start` as a number; nil when one is not a hex digit.
    private static func hexWord(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt64? {
        var value: UInt64 = 0
        for i in start..<(start + 16) {
            guard let d = hexValue(bytes[i]) else { return nil }
            value = value << 4 | UInt64(d)
        }
        return value
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 97...102: return b - 87
        case 65...70: return b - 55
        default: return nil
        }
    }

    private static func hex16(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    public static func handle(index: Int) -> Handle {
        let digits = String(index)
        let number = "+1555" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
        return Handle(kind: .phoneNumber, value: number, displayName: "Device \(index)")
    }

    /// The handle of one of our device ids (`dev-N`), for views that name members by id only.
    public static func handle(forID id: String) -> Handle? {
        guard id.hasPrefix("dev-"), let index = Int(id.dropFirst(4)), index >= 0 else { return nil }
        return handle(index: index)
    }

    /// The handle of device `index` of a kind (an index into `HandleMix.kinds`): a phone number, an email address
    /// or a generic string, each naming the index so a server's member list maps back to the device.
    public static func handle(index: Int, kind: Int) -> Handle {
        switch kind {
        case 1:
            return Handle(kind: .emailAddress, value: "dev-\(index)@callstorm.example", displayName: "Device \(index)")
        case 2: return Handle(kind: .generic, value: "callstorm-dev-\(index)", displayName: "Device \(index)")
        default: return handle(index: index)
        }
    }

    /// The device id behind one of our handle values (`+1555…`, `dev-N@callstorm.example`, `callstorm-dev-N`,
    /// `sip:dev-N@<domain>`), for
    /// histories and views that name devices by handle.
    public static func id(forHandleValue value: String) -> String {
        if value.hasPrefix("+1555"), let index = Int(value.dropFirst(5)) { return "dev-\(index)" }
        if value.hasSuffix("@callstorm.example"), value.hasPrefix("dev-"),
           let index = Int(value.dropFirst(4).dropLast(18)) { return "dev-\(index)" }
        if value.hasPrefix("callstorm-dev-"), let index = Int(value.dropFirst(14)) { return "dev-\(index)" }
        if value.hasPrefix("sip:dev-"), let at = value.firstIndex(of: "@"),
           let index = Int(value[value.index(value.startIndex, offsetBy: 8)..<at]) { return "dev-\(index)" }
        // A user's address of record (`users:`) names the user's first device.
        if value.hasPrefix("sip:user-"), let at = value.firstIndex(of: "@"),
           let index = Int(value[value.index(value.startIndex, offsetBy: 9)..<at]) { return "dev-\(index)" }
        return value
    }
}

/// Which handle each device has (`device.handles`), drawn from the seed by device index, so every worker, shard
/// and view reader gives a device the same handle without a table.
public struct HandleBook: Sendable, Equatable {
    public let seed: UInt64
    public let mix: HandleMix
    /// The address every device is known by when its signaling kind names devices by address (a SIP device's
    /// address of record, `sip:dev-N@<domain>`, generic: what its calls' From names and what a SIP server can
    /// put in a push); nil when devices take their handles from `mix` (HTTP and WebSocket devices). The kind
    /// says which (`DeviceSignaling.handleAddress`).
    public let address: HandleAddress?

    public init(seed: UInt64, mix: HandleMix, address: HandleAddress? = nil) {
        self.seed = seed
        self.mix = mix
        self.address = address
    }

    /// The kind (an index into `HandleMix.kinds`) of device `index`.
    public func kind(index: Int) -> Int {
        if mix.shares[0] >= 1 { return 0 }
        var random = SeededRandom(splitMix: seed ^ 0x68616e646c65 ^ (UInt64(index) &* SeededRandom.golden))
        return mix.kind(draw: Double(random.next() >> 11) / Double(1 << 53))
    }

    /// `user`: the handle of the user whose first device is `index` (`users:`): the same kind as that device's,
    /// and an address of record `<scheme>:user-N@<domain>` where devices are named by address.
    public func handle(index: Int, user: Bool = false) -> Handle {
        if let address {
            let name = user ? "user-\(index)" : "dev-\(index)"
            return Handle(kind: .generic, value: "\(address.scheme):\(name)@\(address.domain)",
                          displayName: user ? "User \(index)" : "Device \(index)")
        }
        return DeviceIdentity.handle(index: index, kind: kind(index: index))
    }

    /// The handle of one of our device ids (`dev-N`), for views that name members by id only.
    public func handle(forID id: String) -> Handle? {
        guard id.hasPrefix("dev-"), let index = Int(id.dropFirst(4)), index >= 0 else { return nil }
        return handle(index: index)
    }

    /// Whether the app declares handles of this kind (`device.supported_handles`).
    public func supports(_ kind: Handle.Kind) -> Bool {
        switch kind {
        case .phoneNumber: return mix.supported.contains("phone")
        case .emailAddress: return mix.supported.contains("email")
        case .generic: return mix.supported.contains("generic")
        }
    }
}

/// The address a device is known by, `<scheme>:dev-N@<domain>`, when its signaling kind names devices so
/// (`HandleBook.address`).
public struct HandleAddress: Sendable, Equatable {
    public let scheme: String
    public let domain: String

    public init(scheme: String, domain: String) {
        self.scheme = scheme
        self.domain = domain
    }
}
