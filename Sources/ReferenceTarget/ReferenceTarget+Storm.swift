import WebSocket

/// The hook the run's fault controller uses for `socket_storm` windows (it speaks bare close codes, so the CLI
/// needs no WebSocket types).
extension ReferenceTarget {
    /// Ends every event socket at once: with a closing handshake carrying `closeCode`, or abruptly when nil.
    /// Returns how many sockets it ended.
    @discardableResult
    public func stormEventSockets(closeCode: UInt16?) -> Int {
        dropEventSockets(closeCode.map { CloseCode($0) }, reason: closeCode == nil ? "" : "socket_storm")
    }
}
