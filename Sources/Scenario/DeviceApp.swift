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
