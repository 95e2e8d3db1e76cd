import Determinism
import Scenario
import Transport
import WebSocket
import WebSocketClient

/// A worker's device sockets: the pool on the worker's `EventThread` (one per worker), the lifecycle deciding
/// when each device's socket opens and closes, and the actions sent over sockets waiting for their replies.
/// Exists only when `device.socket` is not `none`, so a run without sockets creates no pool and counts nothing.
///
/// Thread rule: touched only on the worker's queue (the pool's events come there too).
final class DeviceSockets {
    /// An action on its way over a socket: queued until the socket opens, then waiting for its reply.
    struct Outgoing {
        let device: Int
        let text: String
        /// The operation's HTTP endpoint when the mapping has one (its `expect` and `capture` apply), else a
        /// stand-in that expects 2xx.
        let endpoint: APIMapping.Endpoint
        let completion: (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void
    }

    let pool: SocketPool
    var lifecycle: SocketLifecycle
    let mapping: APIMapping.Socket
    /// Reads server→device messages: replies and events.
    let messages: SocketMessageReader
    /// Pool socket id ↔ the device (worker-local index) it belongs to.
    var device: [UInt64: Int] = [:]
    var socket: [Int: UInt64] = [:]
    /// Actions waiting for their device's socket to open, by device, in order.
    var queued: [Int: [String]] = [:]
    /// Every socket action not answered yet, by request id (queued ones included).
    var outgoing: [String: Outgoing] = [:]
    var nextRequest: UInt64 = 0
    /// Set at the end of the run: the pool's last `.closed` events are the shutdown's, already in the books.
    var stopping = false
    /// Sockets opened so far: part of each socket's seeded stream (its handshake key and masks).
    var opens: UInt64 = 0

    init(pool: SocketPool, lifecycle: SocketLifecycle, mapping: APIMapping.Socket, view: ViewMapping?) {
        self.pool = pool
        self.lifecycle = lifecycle
        self.mapping = mapping
        self.messages = SocketMessageReader(mapping, view: view)
    }

    /// A fresh request id for `${request.id}`: unique per worker, so the `w` prefix keeps workers apart.
    func newRequestID(worker: Int) -> String {
        nextRequest += 1
        return "w\(worker)-\(nextRequest)"
    }

    /// The ws:// or wss:// URL for a rendered `url` template: a path joins the target's base URL.
    static func socketURL(_ rendered: String, base: String) -> String {
        guard rendered.hasPrefix("/") else { return rendered }
        if base.hasPrefix("https://") { return "wss://" + base.dropFirst(8) + rendered }
        if base.hasPrefix("http://") { return "ws://" + base.dropFirst(7) + rendered }
        return base + rendered
    }
}
