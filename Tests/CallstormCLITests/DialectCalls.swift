import Foundation

/// The call state of DialectCallServer, without I/O, so its rules are tested directly: who is in which call,
/// what each socket action does, and who is told about it.
///
/// Its words are its own: a call's `phase` is `ringing` (fewer than two parties connected), `live`, `onhold` (a
/// connected party holds) or `over`; a party's `status` is `alerting`, `talking`, `held` or `dropped`. A call
/// lives while two parties are in it (talking, held or still alerting); `rev` counts its changes and `cause`
/// says why it is over (`declined`, `hangup`).
struct DialectCalls {
    /// A party's status, in the server's words on the wire.
    enum Status: String {
        case alerting, talking, held, dropped

        var isIn: Bool { self != .dropped }
        var isConnected: Bool { self == .talking || self == .held }
    }

    struct Party: Equatable {
        let who: String
        var status: Status
        var present: Bool { status.isIn }
        var connected: Bool { status.isConnected }
    }

    struct Call: Equatable {
        let callId: String
        var parties: [Party]
        var rev = 1
        /// Why it is over; nil while it is not.
        var cause: String?

        var over: Bool { cause != nil }

        var phase: String {
            if over { return "over" }
            let connected = parties.filter(\.connected)
            if connected.count < 2 { return "ringing" }
            return connected.contains { $0.status == .held } ? "onhold" : "live"
        }

        func index(_ who: String) -> Int? { parties.firstIndex { $0.who == who } }

        mutating func end(_ why: String) {
            if cause == nil { cause = why }
            for i in parties.indices { parties[i].status = .dropped }
        }

        var json: String {
            let parties = self.parties.map { "{\"who\":\"\($0.who)\",\"status\":\"\($0.status.rawValue)\"}" }
                .joined(separator: ",")
            let cause = self.cause.map { ",\"cause\":\"\($0)\"" } ?? ""
            return "{\"callId\":\"\(callId)\",\"phase\":\"\(phase)\",\"rev\":\(rev)\(cause),\"parties\":[\(parties)]}"
        }
    }

    /// Why an action was refused: the `code` of `{"ok":false,"error":{"code","text"}}`.
    struct Refusal: Error, Equatable {
        let code: String
        let text: String

        static func over(_ id: String) -> Refusal { Refusal(code: "over", text: "call \(id) is over") }
        static func unknown(_ id: String) -> Refusal { Refusal(code: "unknown", text: "no call \(id)") }
    }

    /// One event an action causes: its word, the call it is about (`callId` on the wire), the view it carries
    /// (another call's for `call.merged` and `call.split`: the one the party is in now), and whom to tell.
    struct Note: Equatable {
        let event: String
        let subject: String
        let call: Call
        let to: [String]
    }

    /// What an action did: the call after it, the call a split made, and the events it causes.
    struct Change: Equatable {
        let call: Call
        var newCall: Call?
        let notes: [Note]
    }

    static let actions: Set<String> = ["answer", "reject", "leave", "hold", "unhold", "merge", "split"]

    /// User id → the secret it registered (its APNs token, which the socket's auth message must repeat).
    private(set) var secrets: [String: String] = [:]
    var calls: [String: Call] = [:]
    var created = 0

    mutating func register(_ user: String, secret: String) { secrets[user] = secret }

    /// A new call from `caller` to `callees`: the caller talking, the callees alerting.
    mutating func dial(from caller: String, to callees: [String]) -> Call {
        created += 1
        let id = "sw-\(created)-\(UUID().uuidString.prefix(8).lowercased())"
        let call = Call(callId: id, parties: [Party(who: caller, status: .talking)]
                        + callees.map { Party(who: $0, status: .alerting) })
        calls[id] = call
        return call
    }

    /// The calls `user` is in that are not over, for the state a socket gets once its auth is accepted.
    func live(for user: String) -> [Call] {
        calls.values.filter { call in !call.over && call.parties.contains { $0.who == user && $0.present } }
            .sorted { $0.callId < $1.callId }
    }

    /// One party's action under the server's rules; `other` is the call merged in (`merge`) or the party split
    /// off (`split`).
    mutating func act(_ action: String, by who: String, on id: String, other: String = "")
        -> Result<Change, Refusal> {
        switch action {
        case "merge": return merge(id, with: other, by: who)
        case "split": return split(id, party: other, by: who)
        default: break
        }
        guard var call = calls[id] else { return .failure(.unknown(id)) }
        if call.over { return .failure(.over(id)) }
        guard let i = call.index(who) else {
            return .failure(Refusal(code: "forbidden", text: "\(who) is not a party"))
        }
        let notify = call.parties.filter(\.present).map(\.who)
        let status = call.parties[i].status
        var event = "call.state"
        switch action {
        case "answer" where status == .alerting:
            call.parties[i].status = .talking
            event = "call.answered"
        case "reject" where status == .alerting, "leave" where status != .dropped:
            call.parties[i].status = .dropped
            if call.parties.filter(\.present).count < 2 { call.end(action == "reject" ? "declined" : "hangup") }
        case "hold" where status == .talking: call.parties[i].status = .held
        case "unhold" where status == .held: call.parties[i].status = .talking
        default:
            return .failure(Refusal(code: "conflict", text: "cannot \(action) while \(status.rawValue)"))
        }
        if call.over { event = "call.over" }
        call.rev += 1
        calls[id] = call
        return .success(Change(call: call, notes: [Note(event: event, subject: id, call: call, to: notify)]))
    }
}
