import CallModel

/// `elsewhere-stops-ringing` (users with several devices, issue 36): once a device of a user answered a
/// conversation (its join fulfilled), or declined it (an end fulfilled while it rang), every other device of that
/// user that rang it stops ringing within the declared grace (`users.ringing_grace`), by a push, a socket event,
/// its own final view or, for a SIP device, its dialog's end (a ringing SIP device is one whose dialog is early);
/// and no such device's final view still rings a conversation the server shows it left.
/// A decline is exempt when the scenario declares the server keeps the others ringing (`on_decline:
/// keep_ringing`). Histories without `user` fields have nothing to judge. An invariant: a server that rings a
/// user's devices must stop them; only the grace is the scenario's (`ServerPolicy.elsewhereGraceNanos`).
struct ElsewhereRule {
    let events: [HistoryEvent]
    let graceNanos: UInt64
    let declineKeepsRinging: Bool

    /// The grace when the scenario declares none (`users.ringing_grace`'s default).
    static let defaultGrace: UInt64 = 2_000_000_000

    /// One device of a user answered or declined a conversation: the op's completion.
    private struct Decision {
        let device: String
        let user: String
        let op: Int
        let index: Int
        let t: UInt64
        let declined: Bool
    }

    /// A device ringing a conversation: from its VoIP push (`start`) until the first line that ends it.
    private struct Ringing {
        let start: Int
        var end: Int?
    }

    func check() -> [Violation] {
        // Without a `user` on any line (no `users:`) nothing is decided by a user: no walk through the events.
        guard events.contains(where: \.namesUser) else { return [] }
        var userOf: [String: String] = [:]
        var invokes: [Int: (Invoke, Int)] = [:]
        var ringing: [String: [String: Ringing]] = [:]  // conversation → device → ringing
        var decisions: [String: Decision] = [:]
        var finals: [(Final, Int)] = []
        var declines: Set<Int> = []
        for (i, e) in events.enumerated() {
            switch e.body {
            case .invoke(let inv):
                if let user = inv.user { userOf[inv.device] = user }
                invokes[inv.op] = (inv, i)
                if let c = inv.conversation, inv.kind == .end {
                    // An end while ringing is a decline.
                    if let ring = ringing[c]?[inv.device], ring.end == nil { declines.insert(inv.op) }
                    stop(&ringing, c, inv.device, at: i)
                }
            case .complete(let done):
                guard done.outcome == .ok, let (inv, _) = invokes[done.op], let c = inv.conversation,
                      let user = userOf[inv.device], decisions[c] == nil else { continue }
                if inv.kind == .join || declines.contains(inv.op) {
                    decisions[c] = Decision(device: inv.device, user: user, op: inv.op, index: i, t: e.t,
                                            declined: inv.kind == .end)
                }
                if inv.kind == .join { stop(&ringing, c, inv.device, at: i) }
            case .push(let p):
                if let user = p.user { userOf[p.device] = user }
                guard let c = p.conversation else { continue }
                if p.event == .voip {
                    if ringing[c]?[p.device] == nil { ringing[c, default: [:]][p.device] = Ringing(start: i) }
                } else if Self.ends(p, for: p.device) {
                    stop(&ringing, c, p.device, at: i)
                }
            case .dialog(let d):
                // A SIP device rings from its early dialog (its 180), an awake one without a push, until its
                // dialog is confirmed (it answered) or terminated (a CANCEL with its Reason, among others).
                if let user = d.user { userOf[d.device] = user }
                if d.state == .early, ringing[d.conversation]?[d.device] == nil {
                    ringing[d.conversation, default: [:]][d.device] = Ringing(start: i)
                } else if d.state == .confirmed || d.state == .terminated {
                    stop(&ringing, d.conversation, d.device, at: i)
                }
            case .final(let f):
                if let user = f.user { userOf[f.device] = user }
                finals.append((f, i))
                if f.local.state == .left { stop(&ringing, f.conversation, f.device, at: i) }
            default:
                continue
            }
        }
        var out: [Violation] = []
        for (c, decision) in decisions.sorted(by: { $0.value.index < $1.value.index }) {
            if decision.declined && declineKeepsRinging { continue }
            for (device, ring) in (ringing[c] ?? [:]).sorted(by: { $0.key < $1.key })
            where device != decision.device && userOf[device] == decision.user {
                if let v = late(device, ring, c, decision) { out.append(v) }
            }
        }
        let found = Set(out.map { "\($0.devices[0])/\($0.conversations[0])" })
        for (f, i) in finals where f.local.state == .ringing && !found.contains("\(f.device)/\(f.conversation)") {
            guard let decision = decisions[f.conversation], f.device != decision.device,
                  userOf[f.device] == decision.user, !(decision.declined && declineKeepsRinging),
                  let server = f.server, server.ended || server.state(of: f.device) == "left" else { continue }
            out.append(violation(f.device, f.conversation, decision, events: [decision.index, i],
                                 "its final view still rings \(f.conversation), which the server shows it left"))
        }
        return out
    }

    /// Whether a push line ends the conversation for `device`: an end, a merge or split away, or a view that
    /// shows the conversation over or the device left.
    private static func ends(_ p: Push, for device: String) -> Bool {
        if p.event == .ended || p.event == .merged || p.event == .split { return true }
        guard let view = p.view else { return false }
        return view.ended || view.state(of: device) == "left"
    }

    private func stop(_ ringing: inout [String: [String: Ringing]], _ c: String, _ device: String, at i: Int) {
        guard let ring = ringing[c]?[device], ring.end == nil else { return }
        ringing[c]?[device]?.end = i
    }

    /// A violation when `device` rang `c` past the grace after the decision (or never stopped before the
    /// history ended at least a grace later).
    private func late(_ device: String, _ ring: Ringing, _ c: String, _ decision: Decision) -> Violation? {
        let from = max(decision.t, events[ring.start].t)
        let deadline = from &+ graceNanos
        if let end = ring.end {
            guard events[end].t > deadline else { return nil }
            let ms = (events[end].t &- decision.t) / 1_000_000
            return violation(device, c, decision, events: [ring.start, decision.index, end].sorted(),
                             "it rang \(c) until \(ms) ms after")
        }
        guard let last = events.last, last.t > deadline else { return nil }
        return violation(device, c, decision, events: [ring.start, decision.index].sorted(),
                         "it never stopped ringing \(c) after")
    }

    private func violation(_ device: String, _ c: String, _ decision: Decision, events indexes: [Int],
                           _ what: String) -> Violation {
        let done = decision.declined ? "declined" : "answered"
        let text = what.hasSuffix("after") ? "\(what) \(decision.device) \(done) it" : what
        let message = "\(device) of \(decision.user) rang on: \(text) (\(decision.device) \(done) it; grace "
            + "\(graceNanos / 1_000_000) ms)"
        let first = events[indexes.first ?? decision.index].t
        let last = max(events[indexes.last ?? decision.index].t, first)
        return Violation(rule: .elsewhereStopsRinging, conversations: [c], ops: [decision.op],
                         devices: [device, decision.device], message: message, window: first...last,
                         events: indexes)
    }
}

private extension HistoryEvent {
    /// The line carries a `user` (the device's, under `users:`).
    var namesUser: Bool {
        switch body {
        case .invoke(let inv): inv.user != nil
        case .push(let p): p.user != nil
        case .dialog(let d): d.user != nil
        case .final(let f): f.user != nil
        case .complete, .stop, .targetKilled, .sip, .media: false
        }
    }
}
