import Credentials
import Dispatch
import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import Transport

/// A call server shaped nothing like the reference protocol, for driving a foreign server end to end:
/// its own words (`setup|live|finished` for calls, `invited|connected|onhold|gone` for participants), a revision
/// counter named `rev`, a VoIP push when a call is created and no push after it (devices must poll
/// `GET /calls/{id}`), hold by a flag, merge that finishes the other call, split that creates a new one, and
/// `410 Gone` for anything done to a finished call. Its switchable races (`Bug`) are the kind a real server has.
/// Its APNs client is an ordinary one: HTTP/2 over TLS to an `https` gateway, trusting the given CA, with ES256
/// provider tokens signed by the given key.
///
///     PUT   /users/{id}                       {"phone","voipToken"}        → 204
///     POST  /calls                            {"caller","callees":[ids]}   → 201 {"call": view}
///     GET   /calls/{id}                                                    → 200 {"call": view}
///     POST  /calls/{id}/answer|reject|leave   {"user"}                     → 200 {"call": view}
///     PATCH /calls/{id}/participants/{user}   {"onHold": bool}             → 200 {"call": view}
///     POST  /calls/{id}/merge                 {"user","other"}             → 200 {"call": view}
///     POST  /calls/{id}/split                 {"user","participant"}       → 200 {"call": view, "newCall": view}
final class ForeignCallServer: HTTPHandler, @unchecked Sendable {
    enum Bug: String, CaseIterable, Sendable {
        /// Merge copies both rosters, yields, and writes them back without the lock: changes landing meanwhile
        /// (a participant leaving) are lost.
        case mergeLostUpdate = "merge-lost-update"
        /// Merge accepts another call that has already finished, and brings it back.
        case mergeAcceptsFinished = "merge-accepts-finished"
        /// Split rebuilds the roster from a copy read before a pause: an answer landing meanwhile is lost.
        case splitLosesAnswer = "split-loses-answer"
    }

    struct Participant: Equatable {
        let user: String
        var st: String
        var present: Bool { st != "gone" }
        var connected: Bool { st == "connected" || st == "onhold" }
    }

    struct Call: Equatable {
        let id: String
        var participants: [Participant]
        var rev = 1
        var finished = false
        var why: String?

        var phase: String {
            if finished { return "finished" }
            return participants.filter(\.connected).count >= 2 ? "live" : "setup"
        }

        func index(_ user: String) -> Int? { participants.firstIndex { $0.user == user } }

        mutating func finish(_ reason: String) {
            finished = true
            why = why ?? reason
            for i in participants.indices { participants[i].st = "gone" }
        }

        /// A call lives while two participants are in it (connected, on hold or still invited).
        mutating func finishIfAlone(_ reason: String) {
            if participants.filter(\.present).count < 2 { finish(reason) }
        }

        var json: String {
            let people = participants.map { "{\"user\":\"\($0.user)\",\"st\":\"\($0.st)\"}" }.joined(separator: ",")
            let why = self.why.map { ",\"why\":\"\($0)\"" } ?? ""
            return "{\"callId\":\"\(id)\",\"phase\":\"\(phase)\",\"rev\":\(rev)\(why),\"participants\":[\(people)]}"
        }
    }

    private struct State {
        var tokens: [String: String] = [:]
        var calls: [String: Call] = [:]
    }

    private let state = Mutex(State())
    private let bugs: Set<Bug>
    private let pusher: TestPushSender
    private let slowQueue = DispatchQueue(label: "foreign.racy", attributes: .concurrent)
    private let created = Atomic<Int>(0)
    var pushesFailed: Int { pusher.failed.load(ordering: .relaxed) }
    let gets = Atomic<Int>(0)

    /// `caFile` and `signer` for an `https` gateway that verifies tokens; without them a cleartext gateway that
    /// accepts any well-formed token.
    init(gatewayURL: String, bugs: Set<Bug> = [], caFile: String? = nil, signer: ProviderTokenSigner? = nil) {
        self.bugs = bugs
        pusher = TestPushSender(gatewayURL: gatewayURL, caFile: caFile, signer: signer, label: "foreign.push")
    }

    func close() { pusher.close() }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let racy = (bugs.contains(.mergeLostUpdate) && request.path.hasSuffix("/merge"))
            || (bugs.contains(.splitLosesAnswer) && request.path.hasSuffix("/split"))
        guard racy else { return respond(route(request)) }
        // The racy handlers read their copy as the request arrives, then work on it off the loop thread, so
        // requests landing meanwhile are served (and then overwritten).
        let copy = state.withLock { $0.calls }
        slowQueue.async { respond(self.route(request, copy: copy)) }
    }

    private func body(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func route(_ r: HTTPRequest, copy: [String: Call]? = nil) -> HTTPResponse {
        let parts = r.pathWithoutQuery.split(separator: "/").map(String.init)
        let b = body(r.body)
        switch (r.method, parts.count) {
        case ("PUT", 2) where parts[0] == "users":
            guard let token = b["voipToken"] as? String else { return .text(422, "voipToken required") }
            state.withLock { $0.tokens[parts[1]] = token }
            return .empty(204)
        case ("POST", 1) where parts[0] == "calls":
            return create(b)
        case ("GET", 2) where parts[0] == "calls":
            gets.add(1, ordering: .relaxed)
            guard let call = state.withLock({ $0.calls[parts[1]] }) else { return .text(404, "no such call") }
            return .json(200, "{\"call\":\(call.json)}")
        case ("POST", 3) where parts[0] == "calls":
            guard let user = b["user"] as? String else { return .text(422, "user required") }
            switch parts[2] {
            case "merge": return merge(parts[1], user, other: b["other"] as? String ?? "", copy: copy)
            case "split": return split(parts[1], user, participant: b["participant"] as? String ?? "", copy: copy)
            default: return change(parts[1], user, parts[2])
            }
        case ("PATCH", 4) where parts[0] == "calls" && parts[2] == "participants":
            guard let hold = b["onHold"] as? Bool else { return .text(422, "onHold required") }
            return change(parts[1], parts[3], hold ? "hold" : "unhold")
        default:
            return .text(404, "unknown route")
        }
    }

    private func create(_ b: [String: Any]) -> HTTPResponse {
        guard let caller = b["caller"] as? String, let callees = b["callees"] as? [String], !callees.isEmpty else {
            return .text(422, "caller and callees required")
        }
        let id = "fc-\(created.add(1, ordering: .relaxed).newValue)-\(UUID().uuidString.prefix(6).lowercased())"
        let call = Call(id: id, participants: [Participant(user: caller, st: "connected")]
                        + callees.map { Participant(user: $0, st: "invited") })
        let tokens: [String] = state.withLock { s in
            s.calls[id] = call
            return callees.compactMap { s.tokens[$0] }
        }
        for token in tokens { pusher.send(token, "{\"callId\":\"\(id)\",\"from\":\"\(caller)\"}") }
        return .json(201, "{\"call\":\(call.json)}")
    }

    /// answer, reject, leave, hold, unhold: one participant's change under the lock.
    private func change(_ id: String, _ user: String, _ what: String) -> HTTPResponse {
        state.withLock { s in
            guard var call = s.calls[id] else { return .text(404, "no such call") }
            if call.finished { return .text(410, "call finished") }
            guard let i = call.index(user) else { return .text(403, "not a participant") }
            let st = call.participants[i].st
            switch what {
            case "answer" where st == "invited": call.participants[i].st = "connected"
            case "reject" where st == "invited", "leave" where st != "gone":
                call.participants[i].st = "gone"
                call.finishIfAlone(what == "reject" ? "declined" : "hangup")
            case "hold" where st == "connected": call.participants[i].st = "onhold"
            case "unhold" where st == "onhold": call.participants[i].st = "connected"
            default: return .text(409, "cannot \(what) while \(st)")
            }
            call.rev += 1
            s.calls[id] = call
            return .json(200, "{\"call\":\(call.json)}")
        }
    }

    private func merge(_ id: String, _ user: String, other otherID: String, copy: [String: Call]?) -> HTTPResponse {
        if let copy {
            // The bug: copy both rosters, yield, write back whatever was computed from the copies.
            guard var a = copy[id], var b = copy[otherID] else { return .text(404, "no such call") }
            usleep(2_000)
            if let refusal = Self.merging(&a, &b, user, acceptsFinished: bugs.contains(.mergeAcceptsFinished)) {
                return refusal
            }
            state.withLock { s in (s.calls[id], s.calls[otherID]) = (a, b) }
            return .json(200, "{\"call\":\(a.json)}")
        }
        return state.withLock { s in
            guard var a = s.calls[id], var b = s.calls[otherID], id != otherID else { return .text(404, "no such call") }
            if let refusal = Self.merging(&a, &b, user, acceptsFinished: bugs.contains(.mergeAcceptsFinished)) {
                return refusal
            }
            (s.calls[id], s.calls[otherID]) = (a, b)
            return .json(200, "{\"call\":\(a.json)}")
        }
    }

    /// Moves `b`'s other participants into `a` and finishes `b`; a refusal when the merge is not allowed.
    private static func merging(_ a: inout Call, _ b: inout Call, _ user: String, acceptsFinished: Bool)
        -> HTTPResponse? {
        if a.finished || (b.finished && !acceptsFinished) { return .text(410, "call finished") }
        if b.finished {
            // The bug: a finished call comes back to life with the merging user in it.
            b.finished = false
            b.why = nil
            if let i = b.index(user) { b.participants[i].st = "connected" }
        }
        guard let i = a.index(user), a.participants[i].connected, let j = b.index(user), b.participants[j].connected
        else { return .text(409, "merging needs the user connected to both calls") }
        for p in b.participants where p.user != user && p.present && a.index(p.user) == nil {
            a.participants.append(p)
        }
        a.participants[i].st = "connected"
        b.finish("merged")
        a.rev += 1
        b.rev += 1
        return nil
    }

    private func split(_ id: String, _ user: String, participant: String, copy: [String: Call]?) -> HTTPResponse {
        // The bug: the roster comes from a copy read before a pause; an answer landing meanwhile is lost.
        let snapshot = copy?[id]
        if snapshot != nil { usleep(2_000) }
        return state.withLock { s in
            guard var call = snapshot ?? s.calls[id] else { return .text(404, "no such call") }
            if call.finished { return .text(410, "call finished") }
            guard let me = call.index(user), call.participants[me].connected, let moved = call.index(participant),
                  participant != user, call.participants[moved].connected
            else { return .text(409, "split needs another connected participant") }
            call.participants[moved].st = "gone"
            call.finishIfAlone("hangup")
            call.rev = (s.calls[id]?.rev ?? call.rev) + 1
            let fresh = Call(id: "fc-\(created.add(1, ordering: .relaxed).newValue)-split",
                             participants: [Participant(user: user, st: "onhold"),
                                            Participant(user: participant, st: "connected")])
            s.calls[id] = call
            s.calls[fresh.id] = fresh
            return .json(200, "{\"call\":\(call.json),\"newCall\":\(fresh.json)}")
        }
    }
}
