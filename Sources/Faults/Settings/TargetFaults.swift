/// Faults of the target itself: callstorm kills the reference target it runs as a child process
/// (`target: { embedded: true, process: true }`) when the window opens and starts it again later, or has the
/// in-process reference target drop every event socket at once (`socket_storm`).
public struct TargetFaults: Sendable, Equatable {
    /// Kill the target when the window opens.
    public var kill: Bool = true
    /// When to start it again, after the kill; nil restarts when the window closes.
    public var restartAfterNanos: UInt64?
    /// `KILL` (a crash: nothing is flushed, connections die with RST or FIN) or `TERM` (an orderly stop).
    public var signal: String = "KILL"
    /// Drop every event socket when the window opens (a window with only this sets `kill` false).
    public var socketStorm: SocketStormFaults?

    public init(kill: Bool = true, restartAfterNanos: UInt64? = nil, signal: String = "KILL",
                socketStorm: SocketStormFaults? = nil) {
        self.kill = kill
        self.restartAfterNanos = restartAfterNanos
        self.signal = signal
        self.socketStorm = socketStorm
    }
}
