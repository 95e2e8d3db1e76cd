/// The media relay a run started (`target.sip.rtpengine`, docs/MEDIA.md): its own per-call counts compared with
/// callstorm's at the run's end.
extension Metric {
    /// Calls whose ends' packet counts were compared with the relay's (a call none of whose ends sent is left out).
    public static let mediaRelayCallsCompared = Metric(named: "media.relay.calls_compared")
    /// Calls where some direction's counts disagree beyond the tolerance (each named in the notes and
    /// media-relay.csv).
    public static let mediaRelayMismatch = Metric(named: "media.relay.mismatch")
    /// ng queries of the relay's counts that got no answer (the relay's counts for some calls may be missing).
    public static let mediaRelayUnanswered = Metric(named: "media.relay.unanswered")
}
