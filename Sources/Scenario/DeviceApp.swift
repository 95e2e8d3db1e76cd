/// What the simulated app does with a VoIP push that carries no new call but must be reported
/// (`device.on_voip_without_call`). iOS gives it no third choice: every such push ends in a report or a
/// termination.
public enum VoIPWithoutCall: String, Sendable, Equatable, CaseIterable {
    /// What careful apps do: report a conversation and end it at once. The phone flashes the incoming-call UI;
    /// the app lives on.
    case reportAndEnd = "report_and_end"
    /// What an app that returns early does: the system terminates it, and the push counts toward
    /// `push.block_after_misses` like a missed deadline.
    case terminate
}

/// A server's words for LiveCommunicationKit's capabilities (`capability_words` of `target.api.view` and
/// `target.api.push`, as `states` maps state words): LCK name → the server's words. Words not listed pass through
/// unchanged, so a server that already says `merging` needs no map.
public enum CapabilityWords {
    /// LiveCommunicationKit's capability names, as scenarios and the reference protocol write them.
    public static let names = ["pausing", "merging", "unmerging", "video", "playingTones"]

    /// The LCK names of a server's capability words.
    public static func lck(_ raw: [String], _ words: [String: [String]]) -> [String] {
        raw.map { word in words.first { $0.value.contains(word) }?.key ?? word }
    }
}

/// `device.handles` and `device.supported_handles`: the kinds of handle devices register with (LiveCommunicationKit's
/// phone number, email address, generic string) and the kinds the app declares (`supportedHandleTypes`).
public struct HandleMix: Sendable, Equatable {
    /// The scenario's words for `Handle.Kind`, in order.
    public static let kinds = ["phone", "email", "generic"]

    /// Share of devices of each kind (`kinds` order), summing to 1.
    public var shares: [Double]
    /// The kinds the app supports (`kinds` words); a caller handle of another kind is a defect.
    public var supported: [String]

    public init(shares: [Double] = [1, 0, 0], supported: [String] = HandleMix.kinds) {
        self.shares = shares
        self.supported = supported
    }

    /// The kind (an index into `kinds`) of the device whose seeded draw in [0, 1) is `u`.
    public func kind(draw u: Double) -> Int {
        var cumulative = 0.0
        for (i, share) in shares.enumerated() {
            cumulative += share
            if u < cumulative { return i }
        }
        return shares.lastIndex { $0 > 0 } ?? 0
    }
}
