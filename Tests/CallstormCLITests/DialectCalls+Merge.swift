/// Merge and split on the dialect server: a merge moves the other call's parties into this one and ends the
/// other (`cause: merged`); a split drops a party from this call and starts a new one between the two.
extension DialectCalls {
    /// `who`, connected to both, merges `otherID` into `id`. The parties of `id` hear `call.state`; those moved
    /// over hear `call.merged` about the call they left, carrying the one they are in now.
    mutating func merge(_ id: String, with otherID: String, by who: String) -> Result<Change, Refusal> {
        guard var call = calls[id], var other = calls[otherID], id != otherID else {
            return .failure(.unknown(calls[id] == nil ? id : otherID))
        }
        if call.over || other.over { return .failure(.over(call.over ? id : otherID)) }
        guard let mine = call.index(who), call.parties[mine].connected, let theirs = other.index(who),
              other.parties[theirs].connected else {
            return .failure(Refusal(code: "conflict", text: "merging needs \(who) connected to both calls"))
        }
        let before = call.parties.filter(\.present).map(\.who)
        let moved = other.parties.filter { $0.who != who && $0.present && call.index($0.who) == nil }
        call.parties.append(contentsOf: moved)
        call.parties[mine].status = .talking
        call.rev += 1
        other.end("merged")
        other.rev += 1
        (calls[id], calls[otherID]) = (call, other)
        return .success(Change(call: call, notes: [
            Note(event: "call.state", subject: id, call: call, to: before),
            Note(event: "call.merged", subject: otherID, call: call, to: moved.map(\.who)),
        ]))
    }

    /// `who` splits `party` off `id` into a new call of the two (`who` held, `party` talking). The parties left
    /// hear `call.state`; `party` hears `call.split` about `id`, carrying the new call.
    mutating func split(_ id: String, party: String, by who: String) -> Result<Change, Refusal> {
        guard var call = calls[id] else { return .failure(.unknown(id)) }
        if call.over { return .failure(.over(id)) }
        guard let mine = call.index(who), call.parties[mine].connected, let moved = call.index(party),
              party != who, call.parties[moved].connected else {
            return .failure(Refusal(code: "conflict", text: "a split needs another connected party"))
        }
        call.parties[moved].status = .dropped
        if call.parties.filter(\.present).count < 2 { call.end("hangup") }
        call.rev += 1
        created += 1
        let fresh = Call(callId: "sw-\(created)-split", parties: [Party(who: who, status: .held),
                                                                   Party(who: party, status: .talking)])
        (calls[id], calls[fresh.callId]) = (call, fresh)
        let left = call.parties.filter { $0.present || $0.who == who }.map(\.who)
        return .success(Change(call: call, newCall: fresh, notes: [
            Note(event: call.over ? "call.over" : "call.state", subject: id, call: call, to: left),
            Note(event: "call.split", subject: id, call: fresh, to: [party]),
        ]))
    }
}
