import ReferenceTarget

extension EmbeddedServers {
    /// The in-process embedded target's hook for `socket_storm` windows; nil when the run drives another target
    /// (a child process or the user's server, where validation refuses storms).
    var socketStormHook: (@Sendable (UInt16?) -> Int)? {
        guard let target else { return nil }
        return { code in target.stormEventSockets(closeCode: code) }
    }
}
