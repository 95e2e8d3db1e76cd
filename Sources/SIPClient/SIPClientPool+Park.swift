import CLinux

/// A sleeping device's agent kept across its sleeps (issue 33): the device closes its socket at sleep, as a
/// suspended phone app does, and opens a new one at its next wake; what it frees and makes again in between (the
/// agent with its identifiers, string cache, registration client, sessions and books, ~8 objects, and its
/// registration's and transactions' storage) is kept instead. The agent on its new socket is the one `add` would
/// open for the same account, transport and seed: its identifiers are drawn again from the seed, its registration
/// starts afresh (a new Call-ID and From tag, CSeq 1, a new digest answer to the registrar's challenge), it has no
/// transaction, call or dialog. Only its books go on from one wake to the next: they are read once, summed over
/// every agent, when the run ends (`counters` adds the parked ones too), so an agent's own books are never seen
/// alone; adding them to the closed ones at each sleep and making new ones at each wake cost ~3,800 instructions an
/// agent, ~7,600 a wake call (issue 33, docs/SIP.md; a device's books are now added up once, at the end).
extension SIPClientPool {
    /// Removes agent `id`, its books kept (added to the closed agents'); its socket is closed unless a failed
    /// connection already took it. Beside `park`, which shares its steps (`close(_:keepingAgent:)`).
    public func close(_ id: Int) { close(id, keepingAgent: false) }

    /// `close`, the agent kept for `reopen`. A WebSocket agent is not kept: its `.invalid` host comes from its seed.
    public func park(_ id: Int) {
        guard let agent = agents[id] else { return }
        let kept = !agent.transport.isWebSocket
        close(id, keepingAgent: kept)
        guard kept else { return }
        agent.sleep()
        books.parked[id] = agent
    }

    /// Parked agent `id` on a new socket, under a new id (an id is never reused: one the owner still holds must
    /// not reach it); nil when no agent is parked under `id`. A socket that fails to open leaves it closed.
    public func reopen(_ id: Int, seed: UInt64) -> Result<Int, SIPClientError>? {
        guard let agent = books.parked.removeValue(forKey: id) else { return nil }
        let id = books.opened + 1
        let socket: SIPSocket
        switch openSocket(id, agent.transport, seed: seed, user: agent.account.user) {
        case .success(let opened): socket = opened
        case .failure(let error):
            books.addClosed(agent)  // no longer kept: its books join the closed ones
            return .failure(error)
        }
        books.opened = id
        agent.wake(seed: seed, localPort: Int(clinux_local_port(socket.fd)))
        agents[id] = agent
        install(socket, agent)
        return .success(id)
    }
}
