/// A relaunched app's SIP stack (issue 37): the process that held the calls is gone, so are its calls and dialogs.
/// Nothing is sent for them; a request the peer sends in one of them later is answered 481 (Call/Transaction Does
/// Not Exist, RFC 3261 §12.2.2), as for any dialog this agent does not know.
extension SIPUserAgent {
    /// Forgets every call and dialog without a word on the wire or an event; the registration and socket stay.
    public func forgetCalls() {
        for callID in Array(sessions.calls.keys) { sessions.dropCall(callID) }
    }

    /// A sleeping device's agent, its socket closed (`SIPClientPool.park`): its transactions, calls, dialogs, the
    /// registration's state and what was still to be sent or told are dropped now (nothing reaches the agent until
    /// its next wake, and a parked agent should hold no call's messages meanwhile).
    func sleep() {
        transactions.reset()
        sessions.reset()
        registration.restart()
        mail.outbox.removeAll(keepingCapacity: true)
        mail.events.removeAll(keepingCapacity: true)
    }

    /// The parked agent woken on a new socket (`SIPClientPool.reopen`): the same as a new agent of its account,
    /// transport and `seed` on `localPort` (`SIPUserAgent.init`), its objects and their storage kept. Its books
    /// and tally go on counting: the pool reads them only in its total, where each agent is added once.
    func wake(seed: UInt64, localPort: Int) {
        setLocalPort(localPort)
        ids.restart(seed: seed)
        flow = FlowRecovery(seed: seed)
    }
}
