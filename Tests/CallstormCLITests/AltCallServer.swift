import Dispatch
import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import Transport

/// A small call server with an API shape of its own (not the reference protocol), for testing `target.api`.
/// It keeps calls in memory and sends its own push payloads to callstorm's gateway.
final class AltCallServer: HTTPHandler, @unchecked Sendable {
    /// What a server may do that breaks PushKit's rule (docs/LCK.md), switched on one by one.
    enum Defect: Sendable {
        /// A call that ends while it still rings is cancelled to the callee with a VoIP push (`"type":
        /// "cancelled"`) instead of a background push: no new call, the callee's app must report or die.
        case cancelByVoIP
        /// When a call ends, the callee gets its VoIP push again (a retry queue that forgot the call is over).
        case resendVoIPAfterEnd
        /// Not a defect, a change a device must follow: the push that tells the caller the callee answered says
        /// the call can no longer be held (`"caps"` without `hold`).
        case withdrawHoldOnAnswer
        /// The VoIP push names no caller.
        case callerHandleMissing
        /// The caller's handle is sent as a generic string (an app that declares phone numbers only cannot use it).
        case callerHandleGeneric
        /// Every other VoIP push writes the caller's number as `tel:+1555…`: not the registered handle, and not
        /// the same from push to push.
        case callerHandleUnstable
    }

    private struct User { let number: String; let token: String }
    private struct Call { let from: String; let to: String; var state: String }

    private let state = Mutex<(users: [String: User], byNumber: [String: String], calls: [String: Call])>(([:], [:], [:]))
    private let sender: TestPushSender
    var pushesFailed: Int { sender.failed.load(ordering: .relaxed) }
    /// Sends the pushes instead of the built-in client when set (an APNs client library under test).
    private let pusher: (@Sendable (_ token: String, _ voip: Bool, _ payload: String) -> Void)?

    private let defects: Set<Defect>

    init(gatewayURL: String, defects: Set<Defect> = [],
         pusher: (@Sendable (_ token: String, _ voip: Bool, _ payload: String) -> Void)? = nil) {
        self.pusher = pusher
        self.defects = defects
        sender = TestPushSender(gatewayURL: gatewayURL, label: "alt.push")
    }

    func close() { sender.close() }

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
            let found: (callee: User, caller: String)? = state.withLock { s in
                guard let calleeID = s.byNumber[to], let callee = s.users[calleeID] else { return nil }
                s.calls[id] = Call(from: from, to: calleeID, state: "ringing")
                return (callee, s.users[from]?.number ?? "")
            }
            guard let found else { return .text(404, "no such number") }
            push(found.callee.token, voip: true,
                 "{\"callId\":\"\(id)\",\"from\":{\"number\":\"\(to)\"}\(callerField(found.caller))}")
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
                let caps = defects.contains(.withdrawHoldOnAnswer) ? "[\"merge\",\"split\"]" : "[\"hold\",\"merge\",\"split\"]"
                push(other.token, voip: false, "{\"callId\":\"\(id)\",\"type\":\"accepted\",\"caps\":\(caps)}")
            }
            _ = user
            return .json(200, "{\"ok\":true}")
        case ("DELETE", 3) where parts[1] == "calls":
            let user = query.hasPrefix("user=") ? String(query.dropFirst(5)) : ""
            let ended: (other: User, callee: User?, ringing: Bool)? = state.withLock { s in
                guard var call = s.calls[parts[2]], call.state != "ended",
                      let other = s.users[user == call.from ? call.to : call.from] else { return nil }
                let ringing = call.state == "ringing"
                call.state = "ended"
                s.calls[parts[2]] = call
                return (other, s.users[call.to], ringing)
            }
            guard let ended else { return .text(409, "call over") }
            let id = parts[2]
            if ended.ringing, defects.contains(.cancelByVoIP) {
                push(ended.other.token, voip: true, "{\"callId\":\"\(id)\",\"type\":\"cancelled\"}")
            } else {
                push(ended.other.token, voip: false, "{\"callId\":\"\(id)\",\"type\":\"hangup\"}")
            }
            if defects.contains(.resendVoIPAfterEnd), let callee = ended.callee {
                // A moment later, as a retry queue would: the callee has seen the end by then.
                // limits: a server's own resend timer, on the real clock the run under test also runs on
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { [self] in
                    push(callee.token, voip: true, "{\"callId\":\"\(id)\",\"from\":{\"number\":\"again\"}}")
                }
            }
            return .json(200, "{\"ok\":true}")
        default:
            return .text(404, "unknown")
        }
    }

    /// VoIP pushes sent per caller number, for `callerHandleUnstable`.
    private let callsBy = Mutex<[String: Int]>([:])

    /// `,"caller":{…}` as the defects switched on make it (nothing when it is missing).
    private func callerField(_ number: String) -> String {
        if defects.contains(.callerHandleMissing) { return "" }
        let odd = callsBy.withLock { counts -> Bool in
            counts[number, default: 0] += 1
            return counts[number]! % 2 == 0
        }
        let value = defects.contains(.callerHandleUnstable) && odd ? "tel:\(number)" : number
        let kind = defects.contains(.callerHandleGeneric) ? "generic" : "phoneNumber"
        return ",\"caller\":{\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"displayName\":\"\(value)\"}"
    }

    private func push(_ token: String, voip: Bool, _ payload: String) {
        if let pusher { return pusher(token, voip, payload) }
        sender.send(token, voip: voip, payload)
    }
}
