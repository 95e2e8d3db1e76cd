import HTTPServer
import WebSocket

/// The event channel's side of the target's public surface.
extension ReferenceTarget {
    /// Called by the server for every connection it closes: forgets event sockets on it.
    public func connectionClosed(_ id: UInt64) {
        events.connectionClosed(id)
    }

    /// Event-channel sockets open now.
    public var eventSocketsOpen: Int { events.openSockets }
    /// Events and action answers sent over event sockets.
    public var socketEventsSent: Int { events.eventsSent.load(ordering: .relaxed) }
    public var socketActionsAnswered: Int { events.actionsAnswered.load(ordering: .relaxed) }
    /// How closed event sockets ended, by cause and code.
    public var eventSocketCloses: CloseTally { events.tally }

    /// Ends every event socket at once, as a server restart or a deliberate reconnect storm does: with `code`
    /// (e.g. 1001 going away) through a closing handshake, or abruptly (no close frame) when `code` is nil.
    /// Returns how many it ended.
    @discardableResult
    public func dropEventSockets(_ code: CloseCode?, reason: String = "") -> Int {
        events.dropAll(code, reason: reason)
    }
}
