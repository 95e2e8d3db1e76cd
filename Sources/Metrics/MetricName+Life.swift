/// The phone's own life (issue 37): each event a device lived, from a chaos window or a flow step, and the actions
/// it made the device send its server. A window's events are also `faults.device.<event>` (faults.csv).
extension MetricName {
    /// One life event acted: `life.interrupted` (and `life.interrupted_hold` or `life.interrupted_end`),
    /// `life.manager_reset`, `life.relaunch`, `life.filtered`.
    public static func life(_ event: String) -> String { "life.\(event)" }
    /// A life event that found nothing to act on (the conversation had ended, or was in a state the system leaves).
    public static let lifeSkipped = "life.skipped"
    /// The actions life events made, by how the server answered them.
    public static let lifeActionsFulfilled = "life.actions.fulfilled"
    public static let lifeActionsFailed = "life.actions.failed"
    /// A relaunched app's registration, by its answer.
    public static let lifeRelaunchRegistered = "life.relaunch.registered"
    public static let lifeRelaunchRegisterFailed = "life.relaunch.register_failed"
}

extension Metric {
    public static func life(_ event: String) -> Metric { Metric(named: MetricName.life(event)) }
    public static let lifeSkipped = Metric(named: MetricName.lifeSkipped)
    public static let lifeActionsFulfilled = Metric(named: MetricName.lifeActionsFulfilled)
    public static let lifeActionsFailed = Metric(named: MetricName.lifeActionsFailed)
    public static let lifeRelaunchRegistered = Metric(named: MetricName.lifeRelaunchRegistered)
    public static let lifeRelaunchRegisterFailed = Metric(named: MetricName.lifeRelaunchRegisterFailed)
}
