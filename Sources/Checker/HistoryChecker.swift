import CallModel

/// Checks a history against the rules of conversation semantics (see docs/CHECKER.md).
///
/// One pass over the events in history order, keeping per operation and per conversation only what the rules need,
/// so a history of a million operations checks in seconds. Indeterminate operations (`info`, or never completed)
/// are allowed either outcome: any rule whose verdict would depend on whether one took effect excuses it.
public enum HistoryChecker {
    /// `policy` is what the scenario declares of the server's choices (the embedded reference target's are built
    /// in); a policy rule with nothing declared is skipped and listed in `rulesSkipped`.
    public static func check(_ events: [HistoryEvent], policy: ServerPolicy = .undeclared) -> CheckReport {
        var state = CheckState(events: events, policy: policy)
        for i in events.indices { state.step(i) }
        return state.finish()
    }
}

// MARK: - State

/// A view as the checker saw it: where, when, and from which operation's response (nil for pushes and finals).
struct Seen {
    var view: ConversationView
    var index: Int
    var t: UInt64
    var op: Int?
}

/// How a view reached the checker, which decides what it may prove.
enum ViewSource {
    /// In the response to `op`, invoked at `invokeT`: the server's state at a point inside the op.
    case response(op: Int, invokeT: UInt64)
    /// A push: some past state of the server, possibly delayed or reordered in flight.
    case push
    /// The server's `GET` after the call.
    case final
}

struct OpRecord {
    var invoke: Invoke
    var invokeIndex: Int
    var invokeT: UInt64
    var completeIndex: Int?
    var completeT: UInt64?
    var outcome: Outcome?
    /// The highest-version ok response on the op's conversation that completed before this op was invoked.
    var priorOk: OkResponse?
}

/// merge: the latest known views of both conversations when it was invoked.
struct MergeSnapshot {
    var before: Seen?
    var beforeWith: Seen?
}

/// Op records in invoke order, found by op id: a dense array keeps a million of them cheap to fill and scan.
///
/// The driver numbers ops 0, 1, 2, …, so ids that stay near the count of records are found by position in `dense`
/// (no hashing); any other id (a foreign or hand-written history) goes to `slots`. An id is in one of the two.
struct OpTable {
    private var records: [OpRecord] = []
    private var slots: [Int: Int32] = [:]
    /// Record index + 1 by op id; 0 for none.
    private var dense: [Int32] = []

    init(capacity: Int) {
        records.reserveCapacity(capacity)
    }

    subscript(op: Int) -> OpRecord? {
        get { slot(op).map { records[Int($0)] } }
        set {
            guard let newValue else { return }
            if let k = slot(op) { records[Int(k)] = newValue; return }
            insert(op, newValue)
        }
    }

    /// The position of `op`'s record, for reading and changing it in place (`subscript(record:)`): the checker's
    /// steps went through `self[op]`, whose getter copied the whole record (its invoke's texts a retain each) and
    /// whose setter copied it back (issue 33).
    func position(_ op: Int) -> Int? { slot(op).map { Int($0) } }

    /// Debug builds read by address, as `DeviceModel.subscript(local:)` does (docs/ARCHITECTURE.md, known issues).
    #if DEBUG
    subscript(record k: Int) -> OpRecord {
        unsafeAddress {
            precondition(k >= 0 && k < records.count, "record \(k) of \(records.count)")
            return records.withUnsafeBufferPointer { UnsafePointer($0.baseAddress! + k) }
        }
        _modify { yield &records[k] }
    }
    #else
    subscript(record k: Int) -> OpRecord {
        _read { yield records[k] }
        _modify { yield &records[k] }
    }
    #endif

    /// Adds the record of an op not in the table (`position(op)` is nil).
    mutating func insert(_ op: Int, _ record: consuming OpRecord) {
        let k = Int32(records.count)
        records.append(record)
        // Dense while the id is within a few times the records held (bounded memory for any history).
        if op >= 0, op < 4 * records.count + 1_024 {
            if op >= dense.count { dense += repeatElement(0, count: max(op + 1 - dense.count, dense.count)) }
            dense[op] = k + 1
        } else {
            slots[op] = k
        }
    }

    private func slot(_ op: Int) -> Int32? {
        if op >= 0, op < dense.count, dense[op] > 0 { return dense[op] - 1 }
        return slots[op]
    }

    var neverCompleted: Int { records.reduce(0) { $0 + ($1.outcome == nil ? 1 : 0) } }
}

struct OkResponse {
    var version: Int
    var t: UInt64
    var op: Int
    var index: Int
    var invokeIndex: Int
}

/// When and how the checker learnt that a conversation is over.
struct EndedKnowledge {
    var t: UInt64
    var index: Int
    var op: Int?
}

struct ConversationRecord {
    var id: String
    /// The highest-version view seen from any source.
    var latest: Seen?
    /// The lowest-version view that showed it ended.
    var endedView: Seen?
    /// The first evidence it is over: an ended view, a fulfilled merge that merged it away, a merged/ended push.
    var endedKnown: EndedKnowledge?
    /// A fulfilled merge moved its members elsewhere (op, its invoke index, its complete).
    var mergedAway: (op: Int, invokeIndex: Int, index: Int, t: UInt64)?
    /// Operations touching it that are invoked and not yet completed.
    var open = 0
    /// An op touching it ended indeterminate at this time; cleared by a response to an op invoked later.
    var uncertainSince: UInt64?
    var lastOk: OkResponse?
    /// Every op that named it, in invoke order.
    var ops: [Int] = []
    /// Devices joined in `latest` while it is live (mirrors `CheckState.joinedIn`).
    var joined: [String] = []
    var reported: Set<Rule> = []

    init(id: String) { self.id = id }

    var live: Bool { endedKnown == nil && !(latest?.view.ended ?? false) }
    /// Its recent state may still change under an op whose outcome is not known.
    var unsettled: Bool { open > 0 || uncertainSince != nil }
}

// limits: 17 stored properties: the checker's whole state over one history, each read by its rules in one pass; the
// SIP dialogs (`sip`) sit beside the conversations' state because rules 3, 4 and 8 judge both.
struct CheckState {
    let events: [HistoryEvent]
    let policy: ServerPolicy
    var ops: OpTable
    var merges: [Int: MergeSnapshot] = [:]
    /// Conversation ids (Call-IDs for SIP) by number (`TextIDs`), and for each number its conversation's index
    /// (`conversations`) and its SIP call's (`sip.calls`), -1 for none yet: one cheap hash per id a line, where
    /// `String`-keyed dictionaries hashed it with SipHash once per table.
    var names = TextIDs()
    var conversationOf: [Int32] = []
    var conversations: [ConversationRecord] = []
    /// device → conversations (indices) in whose latest live view it is `joined`.
    var joinedIn: [String: [Int]] = [:]
    /// Devices by number (`TextIDs`), and for each whether it invoked an op (`isActor`): callstorm's own. A member
    /// that never acts is an outside party (a PSTN gateway, SIPp, a server-side caller), whose calls are observed,
    /// not held to a device's rules.
    var devices = TextIDs()
    var isActor: [Bool] = []
    var violations: [Violation] = []
    /// Some view had no version: `versions-only-increase` cannot run, and views are ordered by time instead.
    var versionless = false
    var reportedPairs: Set<String> = []
    /// Fulfilled merges (their complete and its index), checked for the union in `finish`.
    var pendingUnions: [(Complete, Int)] = []
    var operations = 0
    var infos = 0
    /// The conversation looked up last: one event names the same one several times (its op's, its view's), and a
    /// comparison with the last id costs less than hashing it again.
    var lastLookup: (id: String, index: Int)?

    /// Fulfilled unmerges whose response carried no split view, and how many did carry one: a server whose
    /// answers never carry one cannot be judged by `unmerge-restores-member`, one that sometimes omits it can.
    var unmerges = UnmergeSplits()
    /// SIP calls' dialogs at each device (`HistoryChecker+SIP`).
    var sip = SIPDialogs()

    struct UnmergeSplits {
        var withoutSplit: [(Complete, Int)] = []
        var withSplit = 0
    }

    init(events: [HistoryEvent], policy: ServerPolicy) {
        self.events = events
        self.policy = policy
        ops = OpTable(capacity: events.count / 3)
    }

    mutating func conversation(_ id: String) -> Int {
        if let last = lastLookup, last.id == id { return last.index }
        let n = name(id)
        var i = Int(conversationOf[n])
        if i < 0 {
            i = conversations.count
            conversations.append(ConversationRecord(id: id))
            conversationOf[n] = Int32(i)
        }
        lastLookup = (id, i)
        return i
    }

    /// The conversation `id`'s index if it has one, through the one-entry cache.
    mutating func lookup(_ id: String) -> Int? {
        if let last = lastLookup, last.id == id { return last.index }
        guard let i = find(id) else { return nil }
        lastLookup = (id, i)
        return i
    }

    /// `lookup` without the cache.
    func find(_ id: String) -> Int? {
        guard let n = names.find(id), conversationOf[n] >= 0 else { return nil }
        return Int(conversationOf[n])
    }

    // MARK: - Steps

    mutating func step(_ i: Int) {
        let e = events[i]
        switch e.body {
        case .invoke(let inv): invoke(inv, at: i, t: e.t)
        case .complete(let c): complete(c, at: i, t: e.t)
        case .push(let p): push(p, at: i, t: e.t)
        case .final(let f): final(f, at: i, t: e.t)
        case .stop, .sip: break
        case .dialog(let d): dialog(d, at: i, t: e.t)
        case .media(let m): media(m, at: i)
        case .targetKilled:
            // The server's memory went with it: what was live is over, though no view will ever say so.
            for ci in conversations.indices where conversations[ci].live {
                markEnded(ci, EndedKnowledge(t: e.t, index: i, op: nil))
            }
        }
    }

    mutating func finish() -> CheckReport {
        finishDialogs()
        for (c, i) in pendingUnions {
            if let rec = ops[c.op] { checkUnion(c, rec, at: i) }
        }
        let skipped = skippedRules()
        if skipped[.unmergeRestores] == nil {
            for (c, i) in unmerges.withoutSplit {
                if let rec = ops[c.op] { reportMissingSplit(c, rec, at: i) }
            }
        }
        // Histories without `user` fields (no `users:`) give it nothing to judge.
        let grace = policy.elsewhereGraceNanos ?? ElsewhereRule.defaultGrace
        violations += ElsewhereRule(events: events, graceNanos: grace,
                                    declineKeepsRinging: policy.declineKeepsRinging ?? false).check()
        let neverCompleted = ops.neverCompleted
        let sorted = violations.enumerated().sorted {
            ($0.element.events.last ?? 0, $0.offset) < ($1.element.events.last ?? 0, $1.offset)
        }.map(\.element)
        var report = CheckReport(operations: operations, rulesChecked: Rule.allCases.filter { skipped[$0] == nil },
                                 violations: sorted, indeterminate: neverCompleted + infos)
        if !skipped.isEmpty {
            report.rulesSkipped = Dictionary(uniqueKeysWithValues: skipped.map { ($0.key.rawValue, $0.value) })
        }
        return report
    }

    /// The rules this history cannot be judged by, and why: what the server's views do not carry, or a policy
    /// the scenario did not declare.
    func skippedRules() -> [Rule: String] {
        var skipped: [Rule: String] = [:]
        if versionless {
            skipped[.versionsIncrease] =
                "the server's views carry no version (map one with target.api.view.version to run it)"
        }
        if policy.unmerge == nil {
            skipped[.unmergePolicy] = "no unmerge policy declared (target.policy.unmerge: "
                + ServerPolicy.Unmerge.allCases.map(\.rawValue).joined(separator: " | ") + ")"
        }
        if !unmerges.withoutSplit.isEmpty, unmerges.withSplit == 0 {
            skipped[.unmergeRestores] = "the server's unmerge answers carry no split conversation "
                + "(map one with target.api.view.split to run it)"
        }
        return skipped
    }

    /// `inv` is the step's own copy of the line's invoke (`step`), moved into the op's record rather than copied
    /// again: each copy was a retain of every text it holds, and its release with the record (issue 33).
    mutating func invoke(_ inv: consuming Invoke, at i: Int, t: UInt64) {
        operations += 1
        isActor[device(inv.device)] = true
        if let first = ops.position(inv.op) {
            let firstIndex = ops[record: first].invokeIndex
            report(.oneOutcome, conversations: inv.touched, ops: [inv.op], devices: [inv.device],
                   "op \(inv.op) was invoked twice (lines \(events[firstIndex].line) and \(events[i].line)); "
                   + "the driver must give every action its own op id", events: [firstIndex, i])
            return
        }
        inv.eachTouched { id in
            let c = conversation(id)
            conversations[c].open += 1
            conversations[c].ops.append(inv.op)
        }
        var priorOk: OkResponse?
        if let id = inv.conversation, let c = lookup(id) {
            if let ok = conversations[c].lastOk, ok.t < t { priorOk = ok }
            if inv.kind == .merge {
                merges[inv.op] = MergeSnapshot(before: conversations[c].latest,
                                               beforeWith: inv.with.flatMap { find($0) }.flatMap {
                                                   conversations[$0].latest
                                               })
            }
        }
        let op = inv.op
        ops.insert(op, OpRecord(invoke: inv, invokeIndex: i, invokeT: t, priorOk: priorOk))
    }

    /// Changes the op's record in place (`OpTable.subscript(record:)`) and copies it once, for the rules, only when
    /// fulfilled: a SIP call's completes went through two copies of the record and two of its invoke.
    mutating func complete(_ c: Complete, at i: Int, t: UInt64) {
        guard let k = ops.position(c.op) else {
            report(.oneOutcome, conversations: [c.conversation].compactMap { $0 }, ops: [c.op], devices: [],
                   "op \(c.op) completed (\(c.outcome.rawValue)) but was never invoked", events: [i])
            return
        }
        if let first = ops[record: k].completeIndex {
            let rec = ops[record: k]
            report(.oneOutcome, conversations: rec.invoke.touched, ops: [c.op], devices: [rec.invoke.device],
                   "\(rec.invoke.kind.rawValue) op \(c.op) by \(rec.invoke.device) has a second outcome "
                   + "(\(rec.outcome?.rawValue ?? "?") at line \(events[first].line), then \(c.outcome.rawValue)); "
                   + "an action is fulfilled or failed once", events: [rec.invokeIndex, first, i])
            return
        }
        ops[record: k].completeIndex = i
        ops[record: k].completeT = t
        ops[record: k].outcome = c.outcome
        // The touched conversations (`Invoke.eachTouched`), read without copying the invoke.
        let conversation = ops[record: k].invoke.conversation
        let with = ops[record: k].invoke.with
        if let conversation { closeOpen(conversation, info: c.outcome == .info, t: t) }
        if let with, with != conversation { closeOpen(with, info: c.outcome == .info, t: t) }
        switch c.outcome {
        case .info: infos += 1
        case .fail: break
        case .ok: fulfilled(c, ops[record: k], at: i, t: t)
        }
    }

    /// An op touching conversation `id` completed: one fewer open, and uncertain from `t` when indeterminate.
    private mutating func closeOpen(_ id: String, info: Bool, t: UInt64) {
        let ci = conversation(id)
        conversations[ci].open -= 1
        if info { conversations[ci].uncertainSince = t }
    }

    mutating func fulfilled(_ c: Complete, _ rec: OpRecord, at i: Int, t: UInt64) {
        checkNotEndedBefore(rec, at: i)
        checkLifeEvent(c, rec, at: i)
        if rec.invoke.kind == .merge, let w = rec.invoke.with, w != rec.invoke.conversation {
            let inv = rec.invoke
            // Which conversation goes on is the server's choice (the reference keeps the one the merge names, LCK's
            // sample code merges into `conversationUUIDToMergeWith`): the response's view names the survivor.
            let survivor = c.view?.id ?? inv.conversation
            for away in [inv.conversation, w].compactMap({ $0 }) where away != survivor {
                let wc = conversation(away)
                if conversations[wc].mergedAway == nil {
                    conversations[wc].mergedAway = (inv.op, rec.invokeIndex, i, t)
                }
                markEnded(wc, EndedKnowledge(t: t, index: i, op: inv.op))
            }
        }
        // Judged at the end, once every concurrent op's outcome is known.
        if rec.invoke.kind == .merge { pendingUnions.append((c, i)) }
        if rec.invoke.kind == .unmerge { checkUnmerge(c, rec, at: i) }
        guard c.view != nil || c.split != nil else { return }  // a SIP call's answers carry no view
        var applied: [Int] = []
        for view in [c.view, c.split].compactMap({ $0 }) {
            checkVersion(view, rec, at: i, t: t)
            applied.append(apply(view, at: i, t: t, source: .response(op: rec.invoke.op, invokeT: rec.invokeT)))
        }
        for ci in applied { checkSingleActive(ci, at: i) }
    }

    mutating func push(_ p: Push, at i: Int, t: UInt64) {
        // An end elsewhere (issue 36) is this device's alone: the conversation goes on on the user's other device.
        let elsewhere = p.reason == "joinedElsewhere" || p.reason == "declinedElsewhere"
        if (p.event == .merged || (p.event == .ended && !elsewhere)), let id = p.conversation, id != p.view?.id {
            markEnded(conversation(id), EndedKnowledge(t: t, index: i, op: nil))
        }
        if let view = p.view { checkSingleActive(apply(view, at: i, t: t, source: .push), at: i) }
    }

    mutating func final(_ f: Final, at i: Int, t: UInt64) {
        guard let server = f.server else { return }
        let ci = apply(server, at: i, t: t, source: .final)
        checkSingleActive(ci, at: i)
        checkFinal(f, server, at: i)
    }

    // MARK: - Views

    /// Folds a view into the conversation's state, checking what a view alone can break. Returns its index.
    mutating func apply(_ view: ConversationView, at i: Int, t: UInt64, source: ViewSource) -> Int {
        if !view.hasVersion { versionless = true }
        let ci = conversation(view.id)
        let seen: Seen
        if case .response(let op, _) = source { seen = Seen(view: view, index: i, t: t, op: op) } else {
            seen = Seen(view: view, index: i, t: t, op: nil)
        }
        var laterThanInvoke: UInt64?  // the op's invoke time for responses, the line's time for finals
        switch source {
        case .response(_, let invokeT): laterThanInvoke = invokeT
        case .final: laterThanInvoke = t
        case .push: laterThanInvoke = nil
        }
        if !view.ended {
            checkReappears(ci, seen, laterThanInvoke, at: i)
            checkMergedAwayStaysEnded(ci, seen, laterThanInvoke, at: i)
        }
        if let since = conversations[ci].uncertainSince, let after = laterThanInvoke, after > since {
            conversations[ci].uncertainSince = nil
        }
        if view.ended, conversations[ci].endedView.map({ view.version < $0.view.version }) ?? true {
            conversations[ci].endedView = seen
            if conversations[ci].endedKnown == nil {
                conversations[ci].endedKnown = EndedKnowledge(t: t, index: i, op: seen.op)
            }
        }
        // Without versions the newest view is the last one read.
        if conversations[ci].latest.map({ view.version > $0.view.version || !view.hasVersion }) ?? true {
            conversations[ci].latest = seen
            reindex(ci)
        }
        return ci
    }

    mutating func markEnded(_ ci: Int, _ knowledge: EndedKnowledge) {
        if conversations[ci].endedKnown == nil { conversations[ci].endedKnown = knowledge }
        reindex(ci)
    }

    /// Keeps `joinedIn` equal to the devices joined in each live conversation's latest view.
    ///
    /// Most views (a push after the response that carried the same state) leave the joined devices as they were;
    /// then the update below would only move `ci` to the end of each device's list, so when it is already there the
    /// dictionary is left alone: the lists come out exactly as the full update makes them, at a lookup per device.
    mutating func reindex(_ ci: Int) {
        var now: [String] = []
        if conversations[ci].live, let latest = conversations[ci].latest {
            // `state == "joined"` is `memberState == .joined` (both compare canonically) without parsing the word.
            for m in latest.view.members where m.state == MemberState.joined.rawValue {
                if now.isEmpty { now.reserveCapacity(latest.view.members.count) }
                now.append(m.device)
            }
        }
        if now == conversations[ci].joined, now.allSatisfy({ joinedIn[$0]?.last == ci }) { return }
        for d in conversations[ci].joined {
            joinedIn[d]?.removeAll { $0 == ci }
        }
        conversations[ci].joined = now
        for d in now { joinedIn[d, default: []].append(ci) }
    }

    // MARK: - Reporting

    mutating func report(_ rule: Rule, conversations: [String], ops: [Int], devices: [String], _ message: String,
                         events indices: [Int]) {
        let sorted = Array(Set(indices)).sorted()
        let times = sorted.map { events[$0].t }
        let window = (times.min() ?? 0)...(times.max() ?? 0)
        violations.append(Violation(rule: rule, conversations: unique(conversations), ops: unique(ops),
                                    devices: unique(devices), message: message, window: window, events: sorted))
    }

    func line(_ i: Int) -> Int { events[i].line }
}

func unique<T: Hashable>(_ xs: [T]) -> [T] {
    var seen = Set<T>()
    return xs.filter { seen.insert($0).inserted }
}
