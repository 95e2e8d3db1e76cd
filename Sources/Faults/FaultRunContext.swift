/// What FaultControl's controller needs of the run it acts on (the load driver): the load's clock, read through the
/// run's one `Clock`, and the fault log. Safe from any thread. It lives here, not beside the controller, so the
/// driver conforms without linking the controller or the proxy.
public protocol FaultRunContext: AnyObject, Sendable {
    /// Nanoseconds since the load began; nil during registration (no window opens before the load).
    func sinceLoadNanos() -> UInt64?
    /// The run's monotonic clock.
    func nowNanos() -> UInt64
    /// The origin of the run's per-second series (and of the history's `t`).
    var seriesStartNanos: UInt64 { get }
    /// Adds a row to faults.csv; `subject` names what was hit (`conn-12`, `proxy`, `pid-42`).
    func logFault(sinceLoadNanos: UInt64, window: String, kind: String, subject: String, seq: UInt64)
}
