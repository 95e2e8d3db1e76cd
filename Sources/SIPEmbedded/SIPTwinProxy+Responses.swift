import SIP
import SIPClient

/// Responses coming back up a branch, and the final-response timer.
extension SIPTwinProxy {
    /// A response from downstream: matched to its branch by the proxy's Via branch and CSeq method (stray ones are
    /// dropped), run through the branch's client transaction.
    func response(_ response: SIPMessage, now: UInt64) {
        guard let method = response.cseq?.method else { return }
        let key = TwinKey(response.branch, method)
        guard let branch = branches[key] else { return }
        if var client = branch.client {
            let effects = client.receive(response, now: now)
            branches[key]?.client = client
            applyClient(effects, key: key, now: now)
            return
        }
        let status = response.status ?? 0
        if method == .invite, status / 100 == 2 {
            forward(branch.upstream, response)  // a 2xx repeat once the branch ended: forwarded statelessly
        } else if method == .invite, status > 100, status < 200, branch.cancelOnRing {
            branches[key]?.cancelOnRing = false
            cancelBranch(key, reason: branch.cancelReason)
        }
    }

    /// A response a branch's transaction delivered.
    func branchAnswered(_ key: TwinKey, _ response: SIPMessage, now: UInt64) {
        guard key.method != SIPMethod.cancel.rawValue, let status = response.status,
              let branch = branches[key], let relay = relays[branch.upstream] else { return }
        if status < 200 {
            guard status > 100 else { return }  // 100 is hop by hop
            branches[key]?.rang = true
            if branch.cancelOnRing || relay.cancelled {
                branches[key]?.cancelOnRing = false
                return cancelBranch(key, reason: branch.cancelReason)
            }
            guard !relay.finished else { return }
            relays[branch.upstream]?.deadline = now + relay.answerNanos  // fr_inv_timer, restarted on each 1xx
            return respond(branch.upstream, upstreamCopy(response), now: now)
        }
        if status / 100 == 2, relay.request.method == .invite {
            branches[key]?.final = status
            forward(branch.upstream, response)
            guard !relay.finished else { return }
            forkEnded(branch.upstream, status: status)
            relays[branch.upstream]?.finished = true
            relays[branch.upstream]?.deadline = nil
            unpark(branch.upstream)
            for other in relay.branches where other != key { endUnanswered(other, reason: .completedElsewhere) }
            return
        }
        if status >= 600, relay.request.method == .invite, !relay.finished {
            // A decline ends the other branches at once (tm: a 6xx CANCELs the rest, with its cause), parks too.
            relays[branch.upstream]?.parks = 0
            var phrase: String?
            if case .response(_, let text) = response.startLine { phrase = text }
            let reason = SIPReason(cause: status, text: phrase)
            for other in relay.branches where other != key { endUnanswered(other, reason: reason) }
        }
        branchEnded(key, status: status, response: response, now: now)
    }

    /// A branch ended without a 2xx: once every branch of the relay ended, the best answer goes upstream: a 6xx,
    /// else the lowest status a branch answered, else the local one. As tm does, a parked INVITE is no exception:
    /// tm does not know tsilo may add a branch later (an awake device's 486 to a call waiting ends the call).
    func branchEnded(_ key: TwinKey, status: Int, response: SIPMessage?, now: UInt64) {
        branches[key]?.final = status
        branches[key]?.answer = response
        guard let up = branches[key]?.upstream, let relay = relays[up], !relay.finished, relay.parks == 0
        else { return }
        let ended = relay.branches.compactMap { branches[$0] }
        guard ended.allSatisfy({ $0.final != nil }) else { return }
        let answers = ended.compactMap(\.answer)
        if let best = answers.first(where: { ($0.status ?? 0) >= 600 })
            ?? answers.min(by: { ($0.status ?? 0) < ($1.status ?? 0) }) {
            respond(up, upstreamCopy(best), now: now)
        } else {
            replyOwn(up, ended.compactMap(\.final).filter { $0 > 0 }.min() ?? 408, now: now)
        }
    }

    /// fr_timer or fr_inv_timer ran out: 408 upstream; branches that rang are CANCELled, the others stopped.
    func finalTimerFired(_ key: TwinKey, now: UInt64) {
        relays[key]?.deadline = nil
        guard let relay = relays[key], !relay.finished else { return }
        for branch in relay.branches { endUnanswered(branch) }
        replyOwn(key, 408, now: now)
    }

    /// Ends a branch still waiting for its final answer: CANCELled (with `reason`) if it rang, else stopped.
    func endUnanswered(_ key: TwinKey, reason: SIPReason? = nil) {
        guard let branch = branches[key], branch.final == nil else { return }
        if branch.rang {
            branches[key]?.final = 487
            cancelBranch(key, reason: reason)
        } else {
            stopBranch(key, reason: reason)
        }
    }

    /// Sends a 2xx upstream as it came, without the proxy's Via (the UAS repeats it, not the proxy).
    func forward(_ key: TwinKey, _ response: SIPMessage) {
        guard let relay = relays[key] else { return }
        send(upstreamCopy(response), over: relay.upstream.transport, to: relay.upstream)
    }

    /// The response without its top Via (the proxy's own).
    func upstreamCopy(_ response: SIPMessage) -> SIPMessage {
        var copy = response
        if let first = copy.headerIndex(.via) { copy.removeHeader(at: first) }
        return copy
    }
}
