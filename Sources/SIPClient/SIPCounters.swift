/// A user agent's books: what it sent and received by method and status code (each message once; repeats are
/// counted apart as retransmissions, by what was repeated), malformed input by `SIPParseError.kind`, and transaction timeouts by timer letter. Keys are stable
/// strings so the Driver's recorder can fold them into its counters as they are.
public struct SIPCounters: Sendable, Equatable {
    public var requestsSent: [String: Int] = [:]
    public var requestsReceived: [String: Int] = [:]
    public var responsesSent: [Int: Int] = [:]
    public var responsesReceived: [Int: Int] = [:]
    /// Repeats this end sent (Timer A/E/G, an ACK re-sent for a repeated final response), by method or status.
    public var retransmissionsSent: [String: Int] = [:]
    /// Repeats absorbed by a transaction (a request or response seen again), by method or status.
    public var retransmissionsReceived: [String: Int] = [:]
    /// Input that was not a SIP message (or broke §8.1.1), by kind; each is also dropped or answered 400.
    public var malformed: [String: Int] = [:]
    /// Transactions that ran out (Timer B, F, H, L), by timer.
    public var timeouts: [String: Int] = [:]
    /// Responses with no transaction and requests for no dialog (481), by method or status.
    public var stray: [String: Int] = [:]
    /// Requests that opened no dialog because their Request-URI names another user (a stale contact's port now
    /// held by this agent), by method: not answered (`SIPUserAgent.incomingInvite`).
    public var misdirected: [String: Int] = [:]
    /// Connections to the proxy that failed before carrying any SIP, by cause: `tls_certificate` (the proxy's
    /// certificate was refused: not from a trusted CA, expired, another name) or `tls_handshake` (any other
    /// handshake failure), `ws_handshake` (the WebSocket Upgrade was refused or broken); the agent's socket is then
    /// closed and not opened again. Over WebSocket also a connection the proxy ended after it carried SIP:
    /// `ws_close_<code>` (a close frame with that code) or `ws_protocol` (it broke RFC 6455); the agent reconnects.
    public var transportFailures: [String: Int] = [:]
    /// TLS handshakes finished (tls, wss), by kind: `full`, or `resumed` (a device's `tls_resumption` offered the
    /// session of its last connection and the server took it).
    public var tlsHandshakes: [String: Int] = [:]
    /// What a forking proxy did to this agent's calls (several devices behind one address of record):
    /// `second_answer` (a caller ACKed and BYEd a second device's 2xx, RFC 3261 §13.2.2.4), `elsewhere_200` and
    /// `elsewhere_603` (a callee's call ended by a CANCEL or BYE whose RFC 3326 Reason names that cause).
    public var forks: [String: Int] = [:]
    /// `device.sockets: shared`: the shared socket's reads (`recvmmsg` calls that returned datagrams) and the
    /// datagrams they carried; their ratio is the batch the stage-by-stage handling works on. Empty otherwise.
    public var sharedSocket: [String: Int] = [:]

    public init() {}

    /// Every count summed into `into`, for merging a pool's agents. Empty books are passed over: most of an agent's
    /// are (no malformed input, no timeouts, no forks), and `Dictionary.merge` of an empty one still walked its
    /// generic path; the pool merges every agent it ever opened at the end of a run (issue 33).
    public func merge(into total: inout SIPCounters) {
        Self.add(requestsSent, to: &total.requestsSent)
        Self.add(requestsReceived, to: &total.requestsReceived)
        Self.add(responsesSent, to: &total.responsesSent)
        Self.add(responsesReceived, to: &total.responsesReceived)
        Self.add(retransmissionsSent, to: &total.retransmissionsSent)
        Self.add(retransmissionsReceived, to: &total.retransmissionsReceived)
        Self.add(malformed, to: &total.malformed)
        Self.add(timeouts, to: &total.timeouts)
        Self.add(stray, to: &total.stray)
        Self.add(misdirected, to: &total.misdirected)
        Self.add(transportFailures, to: &total.transportFailures)
        Self.add(tlsHandshakes, to: &total.tlsHandshakes)
        Self.add(forks, to: &total.forks)
        Self.add(sharedSocket, to: &total.sharedSocket)
    }

    /// `book`'s counts added to `total`'s, key by key; nothing when `book` is empty.
    private static func add<Key: Hashable>(_ book: [Key: Int], to total: inout [Key: Int]) {
        guard !book.isEmpty else { return }
        for (key, n) in book { total[key, default: 0] += n }
    }
}
