import SIP
import SIPClient

/// SIP user agents whose bytes travel through a `SIPNetwork` in memory: the embedded twin of `SIPClientPool`. The
/// agents are the real `SIPUserAgent`s (sans-IO); only their transport is memory. Driven as the real pool drives
/// them: `perform` runs a command and then sends the outbox and reports the events; a packet that arrives is
/// parsed by the SIP module's parser and handed to its agent, then the agent's outbox and events go out; timers
/// fire when the network's clock reaches an agent's deadline. The datagram filter decides every UDP datagram sent
/// or read, as on the real pool (TCP is never filtered); a delayed datagram goes at its due instant.
///
/// Differences from the real pool, all of timing only: timers fire at their deadline exactly (the real pool looks
/// on a 10 ms tick), delayed datagrams likewise; a TCP connection carries whole messages (no partial reads) and is
/// never re-opened after a framing error (the agent counts the error, as there).
///
/// Thread rule: the network's thread calls everything.
public final class MemorySIPPool: SIPAgentPool, SIPNetworkNode {
    private let network: SIPNetwork
    /// The outbound proxy's endpoints: requests go there (by the agent's transport).
    private let proxyPort: Int
    private let onEvent: SIPAgentEventHandler
    private var agents: [Int: SIPUserAgent] = [:]
    private var endpoints: [Int: SIPEndpoint] = [:]
    private var byEndpoint: [SIPEndpoint: Int] = [:]
    private var nextAgent = 1
    /// The books of agents already closed.
    private var closed = SIPCounters()
    /// Datagrams the filter delayed: sent (`to` set) or read (`from` set) at `due`.
    private var delayed: [(due: UInt64, agent: Int, bytes: [UInt8], peer: SIPEndpoint, sending: Bool)] = []
    public var datagramFilter: SIPDatagramFilter?
    /// Nothing refuses a send in memory (a packet to a closed port vanishes on the network instead).
    public var sendErrors: Int { 0 }

    /// A pool on `network` whose agents send requests to the proxy listening on `proxyPort` (UDP and TCP).
    public init(network: SIPNetwork, proxyPort: Int, onEvent: @escaping SIPAgentEventHandler) {
        self.network = network
        self.proxyPort = proxyPort
        self.onEvent = onEvent
    }

    public func add(account: SIPAccount, transport: SIPTransportKind, seed: UInt64) -> Result<Int, SIPClientError> {
        // The Contact says `ws` for wss too (RFC 7118 §5.2): in memory a wss connection is a ws one.
        let endpoint = network.bind(self, transport == .wss ? .ws : transport)
        let id = nextAgent
        nextAgent += 1
        let agent = SIPUserAgent(account: account, transport: transport, localPort: endpoint.port, seed: seed)
        agents[id] = agent
        // A connection in memory is up, and past any handshake, the instant it is opened (told with the agent's
        // first events, as the real pool tells its stages).
        if transport.isStream {
            agent.transportReached(.connected(at: network.clock.nowNanos()))
            if transport != .tcp { agent.transportReached(.transportReady(at: network.clock.nowNanos())) }
        }
        endpoints[id] = endpoint
        byEndpoint[endpoint] = id
        return .success(id)
    }

    public func agent(_ id: Int) -> SIPUserAgent? { agents[id] }

    public func perform(_ id: Int, _ command: (SIPUserAgent, UInt64) -> Void) {
        guard let agent = agents[id] else { return }
        command(agent, network.clock.nowNanos())
        flush(id)
    }

    public var counters: SIPCounters {
        var total = closed
        for id in agents.keys.sorted() { agents[id]?.counters.merge(into: &total) }
        return total
    }

    public func localPort(_ id: Int) -> Int? { agents[id]?.localPort }

    /// The endpoint agent `id` is bound to (for tests that address it).
    public func endpoint(_ id: Int) -> SIPEndpoint? { endpoints[id] }

    public func close(_ id: Int) {
        guard let agent = agents.removeValue(forKey: id), let endpoint = endpoints.removeValue(forKey: id) else {
            return
        }
        agent.counters.merge(into: &closed)
        byEndpoint[endpoint] = nil
        delayed.removeAll { $0.agent == id }
        network.unbind(endpoint)
    }

    public func closeAll() {
        for id in agents.keys.sorted() { close(id) }
    }

    /// Drops every agent's connection to the proxy at once (a proxy restart, with `SIPTwinProxy.forgetBindings`):
    /// each stream agent gets a new connection (a new port; in memory the proxy always takes it) and, under a
    /// recovery policy (`SIPUserAgent.reconnect`), re-REGISTERs on it, as `SIPClientPool` does. UDP agents keep
    /// theirs.
    public func dropConnections() {
        let now = network.clock.nowNanos()
        for id in agents.keys.sorted() {
            guard let agent = agents[id], let old = endpoints[id], old.transport != .udp else { continue }
            byEndpoint[old] = nil
            network.unbind(old)
            let fresh = network.bind(self, old.transport)
            endpoints[id] = fresh
            byEndpoint[fresh] = id
            agent.setLocalPort(fresh.port)
            if agent.connectionLost(now: now), agent.reconnect.recovers {
                agent.reregister(now: now, reconnected: true)
            }
            flush(id)
        }
    }

    // MARK: - The network's side

    func receive(_ packet: SIPPacket, now: UInt64) {
        guard let id = byEndpoint[packet.to] else { return }
        if packet.to.transport == .udp, let filter = datagramFilter {
            switch filter(id, false, SIPStartLine.label(packet.bytes), packet.bytes) {
            case .pass: break
            case .drop: return
            case .delay(let nanos):
                delayed.append((now + nanos, id, packet.bytes, packet.from, false))
                return
            }
        }
        read(packet.bytes, agent: id, from: packet.from, now: now)
    }

    var nextDeadline: UInt64? {
        var next = delayed.map(\.due).min()
        for agent in agents.values {
            if let due = agent.nextDeadline { next = min(next ?? due, due) }
        }
        return next
    }

    func advance(to now: UInt64) {
        let due = delayed.filter { $0.due <= now }
        delayed.removeAll { $0.due <= now }
        for item in due {
            guard let endpoint = endpoints[item.agent] else { continue }
            if item.sending {
                network.send(item.bytes, from: endpoint, to: item.peer)
            } else {
                read(item.bytes, agent: item.agent, from: item.peer, now: now)
            }
        }
        for id in agents.keys.sorted() {
            guard let agent = agents[id], let deadline = agent.nextDeadline, deadline <= now else { continue }
            // A recovery's back-off over: in memory the connection is there, the REGISTER goes again on it.
            if agent.flowRetryDue(now) { agent.reregister(now: now, reconnected: false) }
            agent.advance(to: now)
            flush(id)
        }
    }

    // MARK: - Agents

    private func read(_ bytes: [UInt8], agent id: Int, from: SIPEndpoint, now: UInt64) {
        guard let agent = agents[id], let endpoint = endpoints[id] else { return }
        switch endpoint.transport {
        case .udp:
            agent.receive(datagram: bytes, source: from.handle, now: now)
        case .tcp, .tls, .ws, .wss:
            // The connection is to the proxy: what comes on it is answered on it (the real pool's source 0).
            do {
                agent.receive(try SIPParser.parse(datagram: bytes), source: 0, now: now)
            } catch {
                agent.streamFailed(error)
            }
        }
        flush(id)
    }

    private func flush(_ id: Int) {
        guard let agent = agents[id], let endpoint = endpoints[id] else { return }
        let proxy = SIPEndpoint(endpoint.transport, proxyPort)
        for (bytes, destination) in agent.takeOutbox() {
            var to = proxy
            if case .source(let handle) = destination, let source = SIPEndpoint(handle: handle) { to = source }
            if endpoint.transport == .udp, let filter = datagramFilter {
                switch filter(id, true, SIPStartLine.label(bytes), bytes) {
                case .pass: break
                case .drop: continue
                case .delay(let nanos):
                    delayed.append((network.clock.nowNanos() + nanos, id, bytes, to, true))
                    continue
                }
            }
            network.send(bytes, from: endpoint, to: to)
        }
        for event in agent.takeEvents() {
            onEvent(id, event)
            if let step = agent.recoveryHeard(event, now: network.clock.nowNanos()) { onEvent(id, .flow(step)) }
        }
    }
}
