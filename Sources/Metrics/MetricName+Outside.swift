/// Calls placed by parties callstorm does not simulate (a flow whose first role is `outside`): counted apart from
/// the planned ones, so planned vs delivered stays a figure about callstorm's own arrivals.
extension MetricName {
    /// Calls an outside party started on an idle device (also counted in `calls.started`, and completed, failed or
    /// missed like any call).
    public static let callsStartedByOutside = "calls.started_by_outside"
    /// Calls nobody planned that reached a device and were not taken: `after_window` (the run's `duration` was
    /// over), `no_idle_device` (the flow needs more devices than were idle).
    public static func callsOutsideRefused(_ reason: String) -> String { "calls.outside_refused.\(reason)" }
}

extension Metric {
    public static let callsStartedByOutside = Metric(named: MetricName.callsStartedByOutside)
    public static func callsOutsideRefused(_ reason: String) -> Metric {
        Metric(named: MetricName.callsOutsideRefused(reason))
    }
}
