import Credentials
import Foundation
import HTTPServer
import struct Synchronization.Atomic
import WebSocket

/// A call server that signals over WebSocket in a dialect of its own, unlike the reference target's event
/// channel: other event names and shapes, an auth message it requires before it says anything, actions over the
/// socket answered with a `ref` echo and an `ok` flag instead of a status. The socket protocol and the calls are
/// in `DialectSwitchboard` and `DialectCalls`; this is the HTTP side, the Upgrade and the VoIP pushes (real
/// APNs requests to callstorm's gateway, `TestPushSender`). docs/WEBSOCKET.md ("Another dialect") maps it.
///
///     POST /api/v2/users      {"user","number","apns"}   → 201 {"user"}        (apns: the VoIP token, and the
///                                                                               socket's auth key)
///     POST /api/v2/calls      {"from","to":[ids]}        → 201 {"call": view}  (a VoIP push to each callee:
///                                                                               {"incoming":{"callId","from"}})
///     GET  /api/v2/calls/{id}                            → 200 {"call": view}
///     GET  /api/v2/live       Upgrade, with an x-app-version header (400 without) → the socket
///
/// where a view is {"callId","phase":ringing|live|onhold|over,"rev","cause","parties":[{"who","status"}]}.
final class DialectCallServer: HTTPHandler, WebSocketSession, @unchecked Sendable {
    let board: DialectSwitchboard
    private let pusher: TestPushSender
    let socketsOpened = Atomic<Int>(0)
    /// Requests for routes it does not have (a device sending a member action over HTTP would land here).
    let unknownRoutes = Atomic<Int>(0)

    /// `caFile` and `signer` for an `https` gateway that verifies tokens, as `TestPushSender` takes them;
    /// `silentEnds` as `DialectSwitchboard` takes it.
    init(gatewayURL: String, caFile: String? = nil, signer: ProviderTokenSigner? = nil, silentEnds: Bool = false) {
        board = DialectSwitchboard(silentEnds: silentEnds)
        pusher = TestPushSender(gatewayURL: gatewayURL, caFile: caFile, signer: signer, label: "dialect.push")
    }

    var pushesFailed: Int { pusher.failed.load(ordering: .relaxed) }

    func close() { pusher.close() }

    // MARK: - HTTP

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let response = route(request)
        if response.status == 404, response.body == Array("unknown route".utf8) {
            unknownRoutes.add(1, ordering: .relaxed)
        }
        respond(response)
    }

    private func route(_ r: HTTPRequest) -> HTTPResponse {
        let parts = r.pathWithoutQuery.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "api", parts[1] == "v2" else { return .text(404, "unknown route") }
        let body = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
        switch (r.method, parts[2], parts.count) {
        case ("GET", "live", 3):
            guard r.header("x-app-version") != nil else { return .text(400, "x-app-version header required") }
            return WebSocketUpgrade.accept(r, session: self)
        case ("POST", "users", 3):
            guard let user = body["user"] as? String, let apns = body["apns"] as? String else {
                return .text(422, "user and apns required")
            }
            board.register(user, secret: apns)
            return .json(201, "{\"user\":\"\(user)\"}")
        case ("POST", "calls", 3):
            return dial(body)
        case ("GET", "calls", 4):
            guard let call = board.call(parts[3]) else { return .text(404, "no such call") }
            return .json(200, "{\"call\":\(call.json)}")
        default:
            return .text(404, "unknown route")
        }
    }

    private func dial(_ body: [String: Any]) -> HTTPResponse {
        guard let from = body["from"] as? String, let to = body["to"] as? [String], !to.isEmpty else {
            return .text(422, "from and to required")
        }
        let call = board.dial(from: from, to: to)
        for callee in to {
            guard let token = board.secret(of: callee) else { continue }
            pusher.send(token, "{\"incoming\":{\"callId\":\"\(call.callId)\",\"from\":\"\(from)\"}}")
        }
        return .json(201, "{\"call\":\(call.json)}")
    }

    // MARK: - WebSocket

    func opened(_ peer: WebSocketPeer) {
        socketsOpened.add(1, ordering: .relaxed)
        board.opened(peer)
    }

    func received(_ message: Message, from peer: WebSocketPeer) {
        guard case .text(let text) = message else {
            return peer.close(.unsupportedData, reason: "text only")
        }
        board.received(text, from: peer)
    }

    func closed(_ peer: WebSocketPeer, _ report: CloseReport) {
        board.closed(peer.id)
    }
}
