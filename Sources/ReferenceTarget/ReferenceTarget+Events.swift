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
}
