import HTTPServer
import ReferenceTarget
import TextEscaping
import WebSocket

/// `callstorm target --admin`: two endpoints beside the reference protocol, for benchmarks and chaos scripts
/// that drive a standalone target from outside (docs/PROTOCOL.md, "Admin endpoints"). Off unless asked for,
/// because anyone who can reach the port could drop every device's socket.
///
/// - `POST /admin/drop-event-sockets[?code=N]`: ends every event-channel socket at once (a server-side reconnect
///   storm): abruptly, with no close frame, or with close code N (1000–1003, 1007–1014, 3000–4999).
/// - `GET /admin/event-sockets`: sockets open now, accepted since start, and closed by cause and code.
struct TargetAdmin: HTTPHandler {
    let target: ReferenceTarget

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        guard request.path.hasPrefix("/admin/") else { return target.handle(request, respond: respond) }
        respond(answer(request))
    }

    func connectionClosed(_ id: UInt64) { target.connectionClosed(id) }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.pathWithoutQuery) {
        case ("POST", "/admin/drop-event-sockets"):
            var code: CloseCode?
            if let text = Self.query("code", in: request.path) {
                guard let raw = UInt16(text), CloseCode(raw).isValidOnTheWire else {
                    let why = "code=\(text) cannot be sent in a close frame; use 1000–1003, 1007–1014 or "
                        + "3000–4999, or no code for an abrupt drop"
                    return .json(400, "{\"error\":\(JSONText.quote(why))}")
                }
                code = CloseCode(raw)
            }
            let dropped = target.dropEventSockets(code, reason: code == nil ? "" : "admin drop")
            return .json(200, "{\"dropped\":\(dropped)}")
        case ("GET", "/admin/event-sockets"):
            let tally = target.eventSocketCloses
            let closed = tally.closed.sorted { $0.key < $1.key }
                .map { "\(JSONText.quote($0.key)):\($0.value)" }.joined(separator: ",")
            return .json(200, "{\"open\":\(target.eventSocketsOpen),\"accepted\":\(tally.opened),"
                         + "\"closed\":{\(closed)}}")
        default:
            return .json(404, "{\"error\":\"admin endpoints: POST /admin/drop-event-sockets[?code=N], "
                         + "GET /admin/event-sockets\"}")
        }
    }

    static func query(_ name: String, in path: String) -> String? {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }
}
