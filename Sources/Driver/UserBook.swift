import Determinism
import Scenario

/// Which user each device belongs to (`users:`, issue 36). A call's devices all live on one worker, so a user's
/// devices are grouped along one worker's devices (`DriverSettings.deviceIndexes`): consecutive devices of the
/// worker, as many as a seeded draw keyed by the user's first device says. The same seed, distribution and
/// worker layout give the same users every run; the user is named by its first device (`user-N`).
enum UserBook {
    /// For each of `deviceIndexes` (one worker's, in order), the global index of its user's first device.
    static func leads(of deviceIndexes: [Int], seed: UInt64, users: UsersSpec) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(deviceIndexes.count)
        var i = 0
        while i < deviceIndexes.count {
            let lead = deviceIndexes[i]
            var random = SeededRandom(splitMix: seed ^ 0x7573_6572_73 ^ (UInt64(lead) &* SeededRandom.golden))
            let n = users.devices(draw: Double(random.next() >> 11) / Double(1 << 53))
            let count = min(max(1, n), deviceIndexes.count - i)
            out += repeatElement(lead, count: count)
            i += count
        }
        return out
    }

    /// One worker's device identities: each its own user without `users`, else grouped by `leads`.
    static func identities(_ deviceIndexes: [Int], settings: DriverSettings) -> [DeviceIdentity] {
        guard let users = settings.scenario.users else {
            return deviceIndexes.map { DeviceIdentity(index: $0, seed: settings.seed, handles: settings.handles) }
        }
        let leads = Self.leads(of: deviceIndexes, seed: settings.seed, users: users)
        return zip(deviceIndexes, leads).map {
            DeviceIdentity(index: $0, seed: settings.seed, handles: settings.handles, userLead: $1)
        }
    }

    /// The seeded choice of which of a user's devices acts for a role of a call (answers, declines, or starts):
    /// keyed by the call and the role, so a replay picks the same one.
    static func actingDevice(of count: Int, call: Int, role: Int, seed: UInt64) -> Int {
        guard count > 1 else { return 0 }
        var random = SeededRandom(splitMix: seed ^ 0x6163_7469_6e67 ^ (UInt64(call) &* SeededRandom.golden)
            ^ UInt64(role) &* 0x9E37)
        return Int(random.next() % UInt64(count))
    }
}
