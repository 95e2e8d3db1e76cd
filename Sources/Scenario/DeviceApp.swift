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
