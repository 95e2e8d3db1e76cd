import SIP

/// What the layers above the transactions (the registration client, the INVITE sessions) ask of the agent that
/// routes for them, as PJSIP's dialog and invite layers call its endpoint and libre's `sipsess` and `sipreg` call
/// its `sip` stack. Passed to each call, never kept: a layer holds only its own state.
protocol SIPCore: AnyObject {
    /// The agent's own Via, Contact and From, for its current local address.
    var local: SIPLocalHeaders { get }
    var counters: SIPCounters { get set }
    /// Sends `request` in a new client transaction (§17.1).
    func startClient(_ request: SIPMessage, now: UInt64)
    /// Answers through `request`'s server transaction, created when it has none (§17.2).
    func respond(_ response: SIPMessage, to request: SIPMessage?, source: Int, now: UInt64)
    /// Sends the ACK of a 2xx, which belongs to no transaction (§13.2.2.4), to the proxy.
    func sendACK(_ ack: SIPMessage, retransmission: Bool)
    /// Whether the server transaction `key` is still there (a CANCEL finds its INVITE by it, §9.2).
    func hasServer(_ key: TransactionKey) -> Bool
    /// An ACK for the 2xx of server transaction `key`, matched by dialog: ends its Accepted state (RFC 6026).
    func acknowledged(_ ack: SIPMessage, key: TransactionKey, now: UInt64)
    /// Tells the agent's owner, in order.
    func report(_ event: SIPEvent)
}
