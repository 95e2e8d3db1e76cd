import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import TextEscaping
import WebSocket

/// What the switchboard needs of one socket: a way to send it text and to close it. `WebSocketPeer` is one; the
/// unit tests use a recorder.
protocol DialectPeer: AnyObject, Sendable {
    var id: UInt64 { get }
    func send(text: String)
    func close(_ code: CloseCode, reason: String)
}

extension WebSocketPeer: DialectPeer {}

/// DialectCallServer's socket protocol, apart from the sockets: the auth a socket must send before it hears
/// anything, the state it then gets, actions with their `ref` echoed, and the events every change sends to the
/// parties' sockets. Also holds the calls, so HTTP and socket actions change one state under one lock.
///
///     device → server   {"auth":{"user","key"}}                     first; key = the APNs token it registered
///     server → device   {"type":"session.ready","user","ts"}        then a call.state for each call it is in
///     device → server   {"ref","do":"answer|reject|leave|hold|unhold","callId"}
///                       {"ref","do":"merge","callId","other"}  {"ref","do":"split","callId","party"}
///     server → device   {"ref","ok":true,"call":{view}[,"newCall":{view}]}  or
///                       {"ref","ok":false,"error":{"code","text"}}
///     server → device   {"type":"call.ring|call.answered|call.state|call.over","callId","call":{view},"ts"}
///                       {"type":"call.merged|call.split","callId","into","call":{the call now in},"ts"}
///
/// Close codes: 4001 for anything but auth first, 4003 for a user or key it does not know, 1003 for binary.
/// Thread rules: every method may be called from any thread; state is under one lock, and events are queued to
/// the peers while it is held so each socket hears one call's changes in order.
final class DialectSwitchboard: Sendable {
    private struct Socket {
        let peer: any DialectPeer
        var user: String?
    }

    private struct State {
        var calls = DialectCalls()
        var sockets: [UInt64: Socket] = [:]
        var byUser: [String: Set<UInt64>] = [:]
    }

    private let state = Mutex(State())
    /// Actions that came over sockets and were answered (accepted or refused), and those refused as `over`.
    let actionsAnswered = Atomic<Int>(0)
    let refusedAsOver = Atomic<Int>(0)
    /// The server's wall clock in epoch ms, for `ts` (a test may fix it).
    private let now: @Sendable () -> Int
    /// Tells nobody that a call is over (no `call.over` event): a party learns it only when its own action on
    /// the call is refused with `over`.
    private let silentEnds: Bool

    init(silentEnds: Bool = false,
         now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970 * 1000) }) {
        self.silentEnds = silentEnds
        self.now = now
    }

    // MARK: - Calls (HTTP)

    func register(_ user: String, secret: String) {
        state.withLock { $0.calls.register(user, secret: secret) }
    }

    func secret(of user: String) -> String? { state.withLock { $0.calls.secrets[user] } }

    /// A new call; every party's sockets hear `call.ring`.
    func dial(from caller: String, to callees: [String]) -> DialectCalls.Call {
        state.withLock { s in
            let call = s.calls.dial(from: caller, to: callees)
            tell(call.parties.map(\.who), event(DialectCalls.Note(event: "call.ring", subject: call.callId,
                                                                    call: call, to: [])), in: s)
            return call
        }
    }

    func call(_ id: String) -> DialectCalls.Call? { state.withLock { $0.calls.calls[id] } }

    /// One party's action; the events it causes are queued to their sockets before the lock is released.
    func act(_ action: String, by who: String, on id: String, other: String = "")
        -> Result<DialectCalls.Change, DialectCalls.Refusal> {
        state.withLock { s in
            s.calls.act(action, by: who, on: id, other: other).map { change in
                for note in change.notes where !(silentEnds && note.event == "call.over") {
                    tell(note.to, event(note), in: s)
                }
                return change
            }
        }
    }

    // MARK: - Sockets

    func opened(_ peer: any DialectPeer) {
        state.withLock { $0.sockets[peer.id] = Socket(peer: peer) }
    }

    func closed(_ id: UInt64) {
        state.withLock { s in
            guard let socket = s.sockets.removeValue(forKey: id), let user = socket.user else { return }
            s.byUser[user]?.remove(id)
            if s.byUser[user]?.isEmpty == true { s.byUser[user] = nil }
        }
    }

    func received(_ text: String, from peer: any DialectPeer) {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        guard let user = state.withLock({ $0.sockets[peer.id]?.user }) else {
            return authenticate(object?["auth"] as? [String: Any], peer)
        }
        guard let object else {
            return peer.send(text: Self.refusal(ref: "null", DialectCalls.Refusal(code: "bad", text: "not JSON")))
        }
        let ref = Self.json(object["ref"])
        guard let action = object["do"] as? String, DialectCalls.actions.contains(action),
              let id = object["callId"] as? String else {
            let known = DialectCalls.actions.sorted().joined(separator: "|")
            return peer.send(text: Self.refusal(ref: ref, DialectCalls.Refusal(
                code: "bad", text: "an action needs \"do\" (\(known)) and \"callId\"")))
        }
        actionsAnswered.add(1, ordering: .relaxed)
        let other = object["other"] as? String ?? object["party"] as? String ?? ""
        switch act(action, by: user, on: id, other: other) {
        case .success(let change):
            let split = change.newCall.map { ",\"newCall\":\($0.json)" } ?? ""
            peer.send(text: "{\"ref\":\(ref),\"ok\":true,\"call\":\(change.call.json)\(split)}")
        case .failure(let refusal):
            if refusal.code == "over" { refusedAsOver.add(1, ordering: .relaxed) }
            peer.send(text: Self.refusal(ref: ref, refusal))
        }
    }

    /// The first message must be the auth: then the socket hears `session.ready` and the state of each call its
    /// user is in, in one go under the lock, so no event can slip in between.
    private func authenticate(_ auth: [String: Any]?, _ peer: any DialectPeer) {
        guard let auth else { return peer.close(CloseCode(4001), reason: "auth first") }
        guard let user = auth["user"] as? String, let key = auth["key"] as? String else {
            return peer.close(CloseCode(4003), reason: "auth needs user and key")
        }
        let accepted = state.withLock { s -> Bool in
            guard s.calls.secrets[user] == key, s.sockets[peer.id] != nil else { return false }
            s.sockets[peer.id]?.user = user
            s.byUser[user, default: []].insert(peer.id)
            peer.send(text: "{\"type\":\"session.ready\",\"user\":\(JSONText.quote(user)),\"ts\":\(now())}")
            for call in s.calls.live(for: user) {
                peer.send(text: event(DialectCalls.Note(event: "call.state", subject: call.callId, call: call, to: [])))
            }
            return true
        }
        if !accepted { peer.close(CloseCode(4003), reason: "unknown user or key") }
    }

    /// Every open, authenticated socket of `users`. Called with the lock held (`s` is the locked state).
    private func tell(_ users: [String], _ text: String, in s: State) {
        for user in users {
            for id in s.byUser[user] ?? [] { s.sockets[id]?.peer.send(text: text) }
        }
    }

    /// An event on the wire: `into` only when the view is another call than the one it is about.
    private func event(_ note: DialectCalls.Note) -> String {
        let into = note.call.callId == note.subject ? "" : ",\"into\":\"\(note.call.callId)\""
        return "{\"type\":\"\(note.event)\",\"callId\":\"\(note.subject)\"\(into),\"call\":\(note.call.json),"
            + "\"ts\":\(now())}"
    }

    static func refusal(ref: String, _ refusal: DialectCalls.Refusal) -> String {
        let error = "{\"code\":\"\(refusal.code)\",\"text\":\(JSONText.quote(refusal.text))}"
        return "{\"ref\":\(ref),\"ok\":false,\"error\":\(error)}"
    }

    /// A JSON value written back as it came (the `ref` echo): a string stays a string, a number a number.
    static func json(_ value: Any?) -> String {
        switch value {
        case let text as String: return JSONText.quote(text)
        case let number as NSNumber: return number.stringValue
        default: return "null"
        }
    }
}
