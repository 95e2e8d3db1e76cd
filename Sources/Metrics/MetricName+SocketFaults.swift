/// Socket ends callstorm caused with its faults, each also counted in its row of the socket books.
extension MetricName {
    /// Sockets lost (`socket.lost`) because a `socket_drop` ended them or an abrupt `socket_storm` did.
    public static let socketLostInjected = "socket.lost.injected"
    /// Sockets closed by the server (`socket.closed.server`) because a `socket_storm` with a code told it to.
    public static let socketClosedServerInjected = "socket.closed.server.injected"
}
