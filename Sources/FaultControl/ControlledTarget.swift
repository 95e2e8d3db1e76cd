/// A target callstorm runs as a child process, for `target: { kill: true }` windows.
public protocol ControlledTarget: AnyObject, Sendable {
    /// The running child's process id, nil when it is not running.
    var pid: Int32? { get }
    /// Sends `signal` and waits for the child to end.
    func kill(signal: Int32)
    /// Starts the child again on the same port and waits until it answers.
    func restart() throws
}
