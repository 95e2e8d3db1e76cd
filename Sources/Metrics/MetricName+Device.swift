/// The typed metrics of the simulated devices' LiveCommunicationKit and PushKit rules (docs/LCK.md), spelled
/// once in `MetricName`, which reports and thresholds read.
extension Metric {
    public static let pushesVoIPWithoutCall = Metric(named: MetricName.pushesVoIPWithoutCall)
    public static func pushesVoIPWithoutCall(_ cause: String) -> Metric {
        Metric(named: MetricName.pushesVoIPWithoutCall(cause))
    }
    public static func pushesVoIPNotRequired(_ why: String) -> Metric {
        Metric(named: MetricName.pushesVoIPNotRequired(why))
    }
    public static let pushesVoIPReportedAndEnded = Metric(named: MetricName.pushesVoIPReportedAndEnded)
    public static let devicesTerminatedVoIPWithoutCall = Metric(named: MetricName.devicesTerminatedVoIPWithoutCall)
    public static func missingCapability(_ name: String, step: String) -> Metric {
        Metric(named: MetricName.missingCapability(name, step: step))
    }
    public static func callerHandle(_ defect: String) -> Metric { Metric(named: MetricName.callerHandle(defect)) }
    public static let callerHandlesChecked = Metric(named: MetricName.callerHandlesChecked)
    public static let redialsStarted = Metric(named: MetricName.redialsStarted)
    public static func redialRefused(_ reason: String) -> Metric { Metric(named: MetricName.redialRefused(reason)) }
    public static let redialsAfterDrop = Metric(named: MetricName.redialsAfterDrop)
    public static let redialsAfterDropPlanned = Metric(named: MetricName.redialsAfterDropPlanned)
    public static let redialsAfterDropSkipped = Metric(named: MetricName.redialsAfterDropSkipped)
}
