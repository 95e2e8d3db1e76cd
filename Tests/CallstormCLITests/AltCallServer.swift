import Dispatch
import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import Transport

/// A small call server with an API shape of its own (not the reference protocol), for testing `target.api`.
/// It keeps calls in memory and sends its own push payloads to callstorm's gateway.
final class AltCallServer: HTTPHandler, @unchecked Sendable {
    private struct User { let number: String; let token: String }
    private struct Call { let from: String; let to: String; var state: String }

    private let state = Mutex<(users: [String: User], byNumber: [String: String], calls: [String: Call])>(([:], [:], [:]))
    private let gateway: String
    /// Made once: APNs answers TooManyProviderTokenUpdates to a connection whose token changes faster than 20 min.
    private let providerToken = ProviderTokenText.make()
    private let queue = DispatchQueue(label: "alt.push")
    private var client: HTTPClient!
    let pushesFailed = Atomic<Int>(0)
    /// Sends the pushes instead of the built-in client when set (an APNs client library under test).
    private let pusher: (@Sendable (_ token: String, _ voip: Bool, _ payload: String) -> Void)?

    init(gatewayURL: String, pusher: (@Sendable (_ token: String, _ voip: Bool, _ payload: String) -> Void)? = nil) {
        gateway = gatewayURL
        self.pusher = pusher
        queue.sync { client = HTTPClient(queue: queue) }
    }

    func close() { queue.sync { client.close() } }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        respond(route(request))
    }

    private func json(_ body: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    private func route(_ r: HTTPRequest) -> HTTPResponse {
        let parts = r.pathWithoutQuery.split(separator: "/").map(String.init)
        let query = r.path.split(separator: "?").dropFirst().first.map(String.init) ?? ""
        let body = json(r.body)
        switch (r.method, parts.count) {
        case ("PUT", 3) where parts[1] == "users":
            guard let number = body["number"] as? String, let token = body["pushToken"] as? String else {
                return .text(422, "number and pushToken required")
            }
            state.withLock {
                $0.users[parts[2]] = User(number: number, token: token)
                $0.byNumber[number] = parts[2]
            }
            return .empty(204)
        case ("POST", 2) where parts[1] == "calls":
            guard let from = body["from"] as? String, let to = body["to"] as? String else { return .text(422, "from/to") }
            let id = "call-" + UUID().uuidString.prefix(8).lowercased()
            let callee: User? = state.withLock { s in
                guard let calleeID = s.byNumber[to] else { return nil }
                s.calls[id] = Call(from: from, to: calleeID, state: "ringing")
                return s.users[calleeID]
            }
            guard let callee else { return .text(404, "no such number") }
            push(callee.token, voip: true, "{\"callId\":\"\(id)\",\"from\":{\"number\":\"\(to)\"}}")
            return .json(200, "{\"call\":{\"callId\":\"\(id)\",\"status\":\"ringing\"}}")
        case ("POST", 4) where parts[1] == "calls":
            let id = parts[2]
            guard let user = body["user"] as? String else { return .text(422, "user") }
            let other: User? = state.withLock { s in
                guard var call = s.calls[id], call.state != "ended" else { return nil }
                if parts[3] == "accept" { call.state = "active" }
                s.calls[id] = call
                return parts[3] == "accept" ? s.users[call.from] : nil
            }
            if parts[3] == "accept" {
                guard let other else { return .text(409, "call over") }
                push(other.token, voip: false, "{\"callId\":\"\(id)\",\"type\":\"accepted\"}")
            }
            _ = user
            return .json(200, "{\"ok\":true}")
        case ("DELETE", 3) where parts[1] == "calls":
            let user = query.hasPrefix("user=") ? String(query.dropFirst(5)) : ""
            let other: User? = state.withLock { s in
                guard var call = s.calls[parts[2]], call.state != "ended" else { return nil }
                call.state = "ended"
                s.calls[parts[2]] = call
                return s.users[user == call.from ? call.to : call.from]
            }
            guard let other else { return .text(409, "call over") }
            push(other.token, voip: false, "{\"callId\":\"\(parts[2])\",\"type\":\"hangup\"}")
            return .json(200, "{\"ok\":true}")
        default:
            return .text(404, "unknown")
        }
    }

    private func push(_ token: String, voip: Bool, _ payload: String) {
        if let pusher { return pusher(token, voip, payload) }
        let header = providerToken
        queue.async { [self] in
            let request = ClientRequest(method: "POST", url: "\(gateway)/3/device/\(token)", headers: [
                "authorization: bearer \(header)", "apns-push-type: \(voip ? "voip" : "background")",
                "apns-topic: com.example.callstorm\(voip ? ".voip" : "")", "apns-priority: \(voip ? 10 : 5)",
            ], body: Array(payload.utf8))
            client.send(request) { [self] result in
                if (try? result.get().status) != 200 { pushesFailed.add(1, ordering: .relaxed) }
            }
        }
    }
}

/// A well-formed ES256 provider token (the gateway checks shape and age unless keys are configured).
enum ProviderTokenText {
    static func make() -> String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let now = Int(Date().timeIntervalSince1970)
        return b64("{\"alg\":\"ES256\",\"kid\":\"ALTSERVER1\"}") + "." + b64("{\"iss\":\"ALTTEAM123\",\"iat\":\(now)}") +
            ".c2lnbmF0dXJl"
    }
}
