import Quantities

/// `users:`: people who own several devices. Each user has a number of devices drawn from `counts`/`shares`
/// (seeded by the scenario's seed), one handle the server rings all of them by, and each device its own id and
/// push token. Absent: every device is its own user, as before (issue 36).
public struct UsersSpec: Sendable, Equatable {
    /// Devices per user (each at least 1), and the share of users with that many, summing to 1.
    public var counts: [Int]
    public var shares: [Double]
    /// What the server does to a user's other devices when one declines (`on_decline`).
    public var onDecline: DeclineElsewhere
    /// How long after one device answered (or declined) another may still ring before it is counted and
    /// blamed on the server (`ringing_grace`): the push or socket event that stops it needs a moment.
    public var graceNanos: UInt64

    public static let defaultGraceNanos: UInt64 = 2_000_000_000

    public init(counts: [Int], shares: [Double], onDecline: DeclineElsewhere = .declinedElsewhere,
                graceNanos: UInt64 = UsersSpec.defaultGraceNanos) {
        self.counts = counts
        self.shares = shares
        self.onDecline = onDecline
        self.graceNanos = graceNanos
    }

    /// The number of devices of the user whose seeded draw in [0, 1) is `u`.
    public func devices(draw u: Double) -> Int {
        var cumulative = 0.0
        for (i, share) in shares.enumerated() {
            cumulative += share
            if u < cumulative { return counts[i] }
        }
        return counts[shares.lastIndex { $0 > 0 } ?? 0]
    }

    /// The most devices any user has.
    public var maxDevices: Int { zip(counts, shares).filter { $0.1 > 0 }.map(\.0).max() ?? 1 }

    /// `callstorm validate`'s line for the key.
    func describe() -> String {
        let list = zip(counts, shares).map { "\($0.0): \(Int(($0.1 * 100).rounded()))%" }.joined(separator: ", ")
        return "  users with several devices: { \(list) }, after a decline \(onDecline.rawValue), ringing grace "
            + "\(Quantity.format(nanos: graceNanos)) (held to by elsewhere-stops-ringing)"
    }

    /// The keys of `users`, for validation.
    public static let keys = ["devices", "on_decline", "ringing_grace"]
}

/// What a server does to a user's other ringing devices when one of them declines: ends them with
/// `declinedElsewhere` (LiveCommunicationKit's reason), or lets them ring on until the caller gives up.
public enum DeclineElsewhere: String, Sendable, Equatable, CaseIterable {
    case declinedElsewhere = "declined_elsewhere"
    case keepRinging = "keep_ringing"
}
