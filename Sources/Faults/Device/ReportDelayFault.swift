import Quantities

/// `device: { report_delay: <distribution> }`: a slow app takes this long before it reports a VoIP push (long
/// ones miss the deadline). Drawn once per device part in a call, whichever of its pushes it is.
public struct ReportDelayFault: DeviceFault {
    public static let names = ["report_delay"]
    public static let family = FaultFamily.device
    public static let stream = DrawStream.reportDelay
    public let probability = 1.0
    public let delay: Distribution

    public init?(window: FaultWindow) {
        guard let delay = window.device?.reportDelay else { return nil }
        self.delay = delay
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.device?.reportDelay.map { "report_delay \($0)" }
    }

    /// How long the app of the part `draws` describe takes to report.
    public func delayNanos(_ draws: FaultDraws) -> UInt64 { draws.sample(delay, Self.stream, seq: 0) }
}

extension FaultSchedule {
    /// The report delay of the device's part `subject` in the call planned at `plannedSinceLoad`: the first
    /// window with one decides it.
    public func reportDelay(device: Int, subject: Int, plannedSinceLoad: UInt64, flow: String)
        -> (delayNanos: UInt64, note: FaultNote)? {
        for (i, w) in active(forCallPlannedAt: plannedSinceLoad, device: device, flow: flow) {
            guard let fault = ReportDelayFault(window: w) else { continue }
            let draws = draws(i, device: device, subject: subject, seq: 0, plannedSinceLoad: plannedSinceLoad)
            return (fault.delayNanos(draws), draws.note("device.report_delayed"))
        }
        return nil
    }
}
