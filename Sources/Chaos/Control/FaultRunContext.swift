/// What the fault controller needs of the run it acts on (the load driver): the load's clock, read through the
/// run's one `Clock`, and the fault log. Safe from any thread.
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

/// A target callstorm runs as a child process, for `target: { kill: true }` windows.
public protocol ControlledTarget: AnyObject, Sendable {
    /// The running child's process id, nil when it is not running.
    var pid: Int32? { get }
    /// Sends `signal` and waits for the child to end.
    func kill(signal: Int32)
    /// Starts the child again on the same port and waits until it answers.
    func restart() throws
}

/// Why the fault controller could not start; the description says what to change.
public enum FaultControlError: Error, CustomStringConvertible {
    case noHost(url: String)
    case proxyFailed(String)

    public var description: String {
        switch self {
        case .noHost(let url): return "cannot put the fault proxy in front of '\(url)': no host"
        case .proxyFailed(let why): return "the fault proxy could not start: \(why)"
        }
    }
}
