/// The media relay a run started (`target.sip.rtpengine`, docs/MEDIA.md): its own per-call counts compared with
/// callstorm's at the run's end; the report's Media section reads the first two.
extension MetricName {
    /// Calls whose ends' packet counts were compared with the relay's (a call none of whose ends sent is left out).
    public static let mediaRelayCallsCompared = "media.relay.calls_compared"
    /// Calls where some direction's counts disagree beyond the tolerance (each named in the notes and
    /// media-relay.csv).
    public static let mediaRelayMismatch = "media.relay.mismatch"
    /// ng queries of the relay's counts that got no answer (the relay's counts for some calls may be missing).
    public static let mediaRelayUnanswered = "media.relay.unanswered"
}

extension Metric {
    public static let mediaRelayCallsCompared = Metric(named: MetricName.mediaRelayCallsCompared)
    public static let mediaRelayMismatch = Metric(named: MetricName.mediaRelayMismatch)
    public static let mediaRelayUnanswered = Metric(named: MetricName.mediaRelayUnanswered)
}
