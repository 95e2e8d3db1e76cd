import CallModel

// The rules, one section each; `CheckState` calls them as events arrive.

extension CheckState {
    // MARK: - merge-yields-union

    /// A fulfilled merge of A with B: the response's view (of whichever conversation the server kept) has every
    /// member present in A or B as last known before the invoke, unless an end or unmerge of that member on A or B
    /// may have taken effect meanwhile. Run after the whole history, so a concurrent end that later failed excuses
    /// nobody.
    mutating func checkUnion(_ c: Complete, _ rec: OpRecord, at i: Int) {
        let inv = rec.invoke
        guard let a = inv.conversation, let b = inv.with, let view = c.view else { return }
        let snapshot = merges[inv.op] ?? MergeSnapshot()
        var expected: [String] = []
        for s in [snapshot.before, snapshot.beforeWith].compactMap({ $0 }) { expected += s.view.present }
        let present = Set(view.present)
        let missing = unique(expected).filter { m in
            !present.contains(m) && !mayHaveLeft(m, from: [a, b], during: rec, before: [snapshot.before, snapshot.beforeWith])
        }
        checkRevived(view, merge: rec, at: i)
        guard !missing.isEmpty else { return }
        let shown = [snapshot.before?.index, snapshot.beforeWith?.index].compactMap { $0 }
        report(.mergeUnion, conversations: [a, b], ops: [inv.op], devices: [inv.device] + missing,
               "merge op \(inv.op) of \(a) with \(b) by \(inv.device) lost \(missing.joined(separator: ", ")): "
               + "present before the merge, not in \(view.id) v\(view.version) after it",
               events: shown + [rec.invokeIndex, i])
    }

    /// A merge of A with B that brings member M into A while M's own end of B, invoked before the merge
    /// completed, was fulfilled: no order of the two explains both (end first: M is gone before the merge; merge
    /// first: B is over and the end must fail). A lost update looks exactly like this.
    mutating func checkRevived(_ view: ConversationView, merge rec: OpRecord, at i: Int) {
        // B is the conversation merged away: the one of the pair the response is not a view of.
        guard let named = rec.invoke.with else { return }
        let b = view.id == named ? (rec.invoke.conversation ?? named) : named
        guard let bi = lookup(b) else { return }
        let done = rec.completeT ?? UInt64.max
        let present = Set(view.present)
        for opID in conversations[bi].ops where opID != rec.invoke.op {
            guard let r = ops[opID], r.outcome == .ok, r.invoke.kind == .end, r.invokeT < done,
                  present.contains(r.invoke.device), r.invoke.device != rec.invoke.device,
                  let endDone = r.completeIndex else { continue }
            let a = view.id
            report(.mergeUnion, conversations: [a, b], ops: [rec.invoke.op, opID], devices: [r.invoke.device],
                   "merge op \(rec.invoke.op) brought \(r.invoke.device) into \(a) v\(view.version), but "
                   + "\(r.invoke.device)'s end of \(b) (op \(opID)) was fulfilled alongside it: no order of the two "
                   + "explains both (a lost update?)",
                   events: [rec.invokeIndex, r.invokeIndex, endDone, i].sorted())
        }
    }

    /// True when some end by `member`, or unmerge of `member`, on one of `conversations` was not known to fail and
    /// may have taken effect between the views the merge was judged against and the merge's completion.
    func mayHaveLeft(_ member: String, from conversations: [String], during merge: OpRecord, before: [Seen?]) -> Bool {
        let mergeDone = merge.completeT ?? UInt64.max
        let since = before.compactMap { $0?.t }.min() ?? 0
        for id in conversations {
            guard let ci = find(id) else { continue }
            for opID in self.conversations[ci].ops where opID != merge.invoke.op {
                guard let r = ops[opID], r.outcome != .fail, r.invokeT < mergeDone else { continue }
                let removes = (r.invoke.kind == .end && r.invoke.device == member)
                    || (r.invoke.kind == .unmerge && r.invoke.member == member)
                guard removes else { continue }
                if r.outcome == nil || r.outcome == .info { return true }
                if let done = r.completeT, done > since { return true }
            }
        }
        return false
    }

    /// After a fulfilled merge of A with B, a response to an op invoked later, or a final `GET`, shows B not ended.
    mutating func checkMergedAwayStaysEnded(_ ci: Int, _ seen: Seen, _ after: UInt64?, at i: Int) {
        guard let merged = conversations[ci].mergedAway, let after, after > merged.t,
              !conversations[ci].reported.contains(.mergeUnion) else { return }
        conversations[ci].reported.insert(.mergeUnion)
        let id = conversations[ci].id
        let pair = [ops[merged.op]?.invoke.conversation, ops[merged.op]?.invoke.with].compactMap { $0 }
        let into = pair.first { $0 != id } ?? "?"
        report(.mergeUnion, conversations: [into, id], ops: [merged.op] + [seen.op].compactMap { $0 },
               devices: [ops[merged.op]?.invoke.device].compactMap { $0 },
               "\(id) was merged into \(into) by op \(merged.op) but v\(seen.view.version) of \(id) at line "
               + "\(line(i)) is not ended", events: [merged.invokeIndex, merged.index, i])
    }

    // MARK: - no-device-active-in-two-unheld-conversations

    /// Every device joined in conversation `ci`'s latest view must not be joined in another live conversation,
    /// unless an op on either may still change it (open or indeterminate). Only callstorm's devices (`isActor`):
    /// an outside party, such as a gateway, may be in many calls at once.
    mutating func checkSingleActive(_ ci: Int, at i: Int) {
        guard conversations[ci].live, !conversations[ci].unsettled, let here = conversations[ci].latest else { return }
        for d in conversations[ci].joined where isActor(d) {
            guard let others = joinedIn[d], others.count > 1 else { continue }
            for cj in others where cj != ci && !conversations[cj].unsettled {
                guard let there = conversations[cj].latest else { continue }
                let x = conversations[ci].id, y = conversations[cj].id
                let key = d + "\u{0}" + min(x, y) + "\u{0}" + max(x, y)
                guard reportedPairs.insert(key).inserted else { continue }
                report(.singleActive, conversations: [y, x], ops: [there.op, here.op].compactMap { $0 }, devices: [d],
                       "\(d) is joined (not held) in both \(y) v\(there.view.version) (line \(line(there.index))) "
                       + "and \(x) v\(here.view.version) (line \(line(here.index))), neither ended",
                       events: [there.index, here.index, i])
            }
        }
    }

    // MARK: - ended-conversation-never-reappears

    /// A view of X that is not ended: wrong if its version is not below that of a view that showed X ended, or if
    /// it answers an op invoked (or a `GET` made) after X was seen ended.
    mutating func checkReappears(_ ci: Int, _ seen: Seen, _ after: UInt64?, at i: Int) {
        guard let ended = conversations[ci].endedView, !conversations[ci].reported.contains(.endedStaysEnded)
        else { return }
        let byVersion = seen.view.hasVersion && seen.view.version >= ended.view.version
        let byTime = after.map { $0 > ended.t } ?? false
        guard byVersion || byTime else { return }
        conversations[ci].reported.insert(.endedStaysEnded)
        let id = conversations[ci].id
        report(.endedStaysEnded, conversations: [id], ops: [ended.op, seen.op].compactMap { $0 }, devices: [],
               "\(id) was ended at v\(ended.view.version) (line \(line(ended.index))) but v\(seen.view.version) "
               + "at line \(line(i)) shows it not ended", events: [ended.index, i])
    }

    /// An op fulfilled on a conversation that was known to be over before the op was invoked.
    mutating func checkNotEndedBefore(_ rec: OpRecord, at i: Int) {
        rec.invoke.eachTouched { id in
            guard let ci = lookup(id), let known = conversations[ci].endedKnown, known.t < rec.invokeT else { return }
            let how = known.op.map { "op \($0)" } ?? "line \(line(known.index))"
            report(.endedStaysEnded, conversations: [id], ops: [known.op, rec.invoke.op].compactMap { $0 },
                   devices: [rec.invoke.device],
                   "\(rec.invoke.kind.rawValue) op \(rec.invoke.op) by \(rec.invoke.device) was fulfilled on \(id), "
                   + "which had ended (\(how)); the server must refuse actions on an ended conversation",
                   events: [known.index, rec.invokeIndex, i])
        }
    }

    // MARK: - unmerge-restores-member and unmerge-follows-policy

    /// An ok unmerge of M from A by R: the invariant (any server) is that R and M share the split-off conversation
    /// and A no longer lists M; where R stands (held where, or gone from A) is the server's declared policy.
    mutating func checkUnmerge(_ c: Complete, _ rec: OpRecord, at i: Int) {
        let inv = rec.invoke
        guard let a = inv.conversation, let m = inv.member else { return }
        guard let split = c.split else {
            unmerges.withoutSplit.append((c, i))  // judged in `finish`, once it is known whether any answer has one
            return
        }
        unmerges.withSplit += 1
        var problems: [String] = []
        for who in [m, inv.device] where split.memberState(of: who) == .left {
            problems.append("\(who) is not in the split conversation \(split.id)")
        }
        if split.id == a { problems.append("the split conversation is \(a) itself") }
        if split.ended { problems.append("the split conversation \(split.id) is ended") }
        let group = c.view.flatMap { $0.id == a ? $0 : nil }
        if let group, group.memberState(of: m) != .left {
            problems.append("\(m) is still \(group.memberState(of: m).rawValue) in \(a) v\(group.version)")
        }
        if !problems.isEmpty {
            report(.unmergeRestores, conversations: [a, split.id], ops: [inv.op], devices: [inv.device, m],
                   "unmerge op \(inv.op) of \(m) from \(a) by \(inv.device): " + problems.joined(separator: "; "),
                   events: [rec.invokeIndex, i])
        }
        checkUnmergePolicy(rec, split: split, group: group, at: i)
    }

    /// An ok unmerge whose response has no split view, on a server whose other unmerge answers do have one.
    mutating func reportMissingSplit(_ c: Complete, _ rec: OpRecord, at i: Int) {
        let inv = rec.invoke
        report(.unmergeRestores, conversations: [inv.conversation].compactMap { $0 }, ops: [inv.op],
               devices: [inv.device] + [inv.member].compactMap { $0 },
               "unmerge op \(inv.op) of \(inv.member ?? "?") from \(inv.conversation ?? "?") by \(inv.device): "
               + "the response has no split conversation", events: [rec.invokeIndex, i])
    }

    /// The declared `ServerPolicy.Unmerge`: M joined in the split, and R held there (`hold-split`), or joined there
    /// and held in A (`hold-group`) or gone from A (`leave-group`). A that ended with the unmerge has no R to judge.
    mutating func checkUnmergePolicy(_ rec: OpRecord, split: ConversationView, group: ConversationView?, at i: Int) {
        guard let policy = policy.unmerge else { return }
        let inv = rec.invoke
        guard let m = inv.member, let a = inv.conversation else { return }
        var problems: [String] = []
        let moved = split.memberState(of: m), inSplit = split.memberState(of: inv.device)
        if moved != .joined, moved != .left { problems.append("\(m) is \(moved.rawValue) in \(split.id)") }
        let wantInSplit: MemberState = policy == .holdSplit ? .held : .joined
        if inSplit != wantInSplit, inSplit != .left {
            problems.append("\(inv.device) is \(inSplit.rawValue) in \(split.id), not \(wantInSplit.rawValue)")
        }
        if let group, !group.ended, policy != .holdSplit {
            let want: MemberState = policy == .holdGroup ? .held : .left
            let inGroup = group.memberState(of: inv.device)
            if inGroup != want {
                problems.append("\(inv.device) is \(inGroup.rawValue) in \(a) v\(group.version), not \(want.rawValue)")
            }
        }
        guard !problems.isEmpty else { return }
        report(.unmergePolicy, conversations: [a, split.id], ops: [inv.op], devices: [inv.device, m],
               "unmerge op \(inv.op) of \(m) from \(a) by \(inv.device) breaks the declared policy "
               + "'\(policy.rawValue)': " + problems.joined(separator: "; "), events: [rec.invokeIndex, i])
    }

    // MARK: - versions-only-increase

    /// An ok response on X must carry a higher version than every ok response on X completed before it was invoked.
    mutating func checkVersion(_ view: ConversationView, _ rec: OpRecord, at i: Int, t: UInt64) {
        guard view.hasVersion else {
            versionless = true
            return
        }
        let ci = conversation(view.id)
        if view.id == rec.invoke.conversation, let prior = rec.priorOk, view.version <= prior.version {
            report(.versionsIncrease, conversations: [view.id], ops: [prior.op, rec.invoke.op],
                   devices: [ops[prior.op]?.invoke.device, rec.invoke.device].compactMap { $0 },
                   "\(rec.invoke.kind.rawValue) op \(rec.invoke.op) on \(view.id) answered v\(view.version), "
                   + "not above v\(prior.version) from op \(prior.op) which completed before it was invoked",
                   events: [prior.invokeIndex, prior.index, rec.invokeIndex, i])
        }
        if conversations[ci].lastOk.map({ view.version > $0.version }) ?? true {
            conversations[ci].lastOk = OkResponse(version: view.version, t: t, op: rec.invoke.op, index: i,
                                                  invokeIndex: rec.invokeIndex)
        }
    }

    // MARK: - final-views-agree-with-server

    /// The device's state equals the server's for it; unless that is `left` (or the conversation ended), its
    /// members (not left) and active members (joined, not held; none while the device itself is held), both
    /// excluding itself, equal the server's too.
    mutating func checkFinal(_ f: Final, _ server: ConversationView, at i: Int) {
        let serverState: MemberState = server.ended ? .left : server.memberState(of: f.device)
        var problems: [String] = []
        if f.local.state != serverState {
            problems.append("state: device \(f.local.state.rawValue), server \(serverState.rawValue)")
        } else if serverState != .left {
            let others = server.members.filter { $0.device != f.device }
            let members = Set(others.filter { $0.memberState != .left }.map(\.device))
            let active = serverState == .held ? [] : Set(others.filter(\.isActive).map(\.device))
            if Set(f.local.members) != members {
                problems.append("members: device [\(f.local.members.sorted().joined(separator: ","))], "
                                + "server [\(members.sorted().joined(separator: ","))]")
            }
            if Set(f.local.active) != active {
                problems.append("active: device [\(f.local.active.sorted().joined(separator: ","))], "
                                + "server [\(active.sorted().joined(separator: ","))]")
            }
        }
        guard !problems.isEmpty else { return }
        let ci = conversation(server.id)
        var shown = [i]
        if let latest = conversations[ci].latest, latest.index != i { shown.append(latest.index) }
        report(.finalViewsAgree, conversations: [f.conversation], ops: [], devices: [f.device],
               "\(f.device)'s view of \(f.conversation) disagrees with the server's v\(server.version): "
               + problems.joined(separator: "; "), events: shown)
    }
}
