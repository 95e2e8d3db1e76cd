import SIP

/// One agent's transaction layer (RFC 3261 §17, PJSIP's `sip_transaction.c`, libre's `sip/ctrans.c` and
/// `strans.c`): the client and server transactions in flight and how a message finds its own. A value without
/// I/O: messages and the time go in, each transaction's effects come out with its key for the agent to carry out
/// (send, deliver to the layer above, time out, forget).
///
/// Matching: a response by its top Via branch and CSeq method (§17.1.3: a CANCEL shares its INVITE's branch, so
/// the method tells them apart); a request by its top Via branch and method, an ACK by its INVITE's (§17.2.3;
/// the ACK of a 2xx has a branch of its own and matches nothing here: the dialog finds it). Only RFC 3261
/// branches (`z9hG4bK…`) are issued by this agent; requests from others are matched by branch as they come.
struct TransactionLayer {
    let timers: SIPTimerValues
    /// The transactions in flight and those finished that still absorb retransmissions (32 s over UDP):
    /// `TransactionTable`s, found by key and timed by a heap whatever their number.
    private(set) var clients = TransactionTable<ClientTransaction>()
    private(set) var servers = TransactionTable<ServerTransaction>()
    /// Where each server transaction's responses go (the handle of the request's sender), by its slot in
    /// `servers`: set whenever the transaction is made or answers, so a reused slot never reads a stale one.
    private var sources: [Int] = []
    /// The slots `advance` fires, kept between calls (no list allocated per tick).
    private var due: [Int] = []

    init(timers: SIPTimerValues) { self.timers = timers }

    /// As a new layer with the same timers: every transaction dropped without a word (a sleeping device's agent,
    /// `SIPUserAgent.sleep`), the tables' storage kept, so the next wake's REGISTERs and INVITE do not grow them
    /// from empty again (the reallocations were 4,314 instructions a wake call, 1,376 after; issue 33). The cost:
    /// a sleeping device's agent holds a few empty slots meanwhile.
    mutating func reset() {
        clients.removeAll()
        servers.removeAll()
    }

    /// A transaction's key from its top Via branch and method.
    static func key(_ branch: String?, _ method: SIPMethod?) -> TransactionKey {
        TransactionKey(branch: branch ?? "", method: method ?? SIPMethod(""))
    }

    /// The key of the client transaction a response belongs to (§17.1.3).
    static func clientKey(of response: SIPMessage) -> TransactionKey { key(response.branch, response.cseq?.method) }

    /// The key of the server transaction a request belongs to (§17.2.3): an ACK's is its INVITE's.
    static func serverKey(of request: SIPMessage) -> TransactionKey {
        let method = request.method ?? .options
        return key(request.branch, method == .ack ? .invite : method)
    }

    /// The earliest timer of any transaction: the tops of the two tables' heaps (the pool asks after every
    /// datagram; until 2026-12-08 a kept earliest, walked again over every transaction whenever the one that held
    /// it moved later or left, which each response to it did).
    func nextDeadline() -> UInt64? {
        let due = min(clients.nextDue, servers.nextDue)
        return due == .max ? nil : due
    }

    /// The request that began transaction `key`, client or server.
    func request(_ key: TransactionKey) -> SIPMessage? {
        if let slot = clients.find(key) { return clients[slot].request }
        return servers.find(key).map { servers[$0].request }
    }

    func hasServer(_ key: TransactionKey) -> Bool { servers.contains(key) }

    /// Where server transaction `key` answers.
    func source(_ key: TransactionKey) -> Int? { servers.find(key).map { sources[$0] } }

    /// Starts a client transaction for `request` (its top Via names the branch) and returns the effects of
    /// sending it.
    mutating func start(_ request: SIPMessage, now: UInt64) -> (TransactionKey, [TransactionEffect]) {
        var request = request
        request.keepFields()  // the key, each send's history and a timeout read them
        let (transaction, effects) = ClientTransaction.start(request, timers: timers, now: now)
        let key = Self.key(request.branch, request.cseq?.method)
        // One with the same key (a branch reused) is replaced where it lies, as the array table's setter did.
        if let slot = clients.find(key) {
            _ = clients.replace(slot, with: transaction)
        } else {
            clients.insert(key, transaction)
        }
        return (key, effects)
    }

    /// A response matched to its client transaction (nil: none has its key). `absorbed` when it repeats what the
    /// transaction has seen: a retransmission the books count apart, including a 2xx again in Accepted, which
    /// still reaches the layer above (its ACK is sent again, §13.2.2.4).
    mutating func receive(response: SIPMessage, now: UInt64)
        -> (key: TransactionKey, effects: [TransactionEffect], absorbed: Bool)? {
        let key = Self.clientKey(of: response)
        guard let slot = clients.find(key) else { return nil }
        let (effects, absorbed) = clients.update(slot) { t in
            let repeated = t.state == .accepted && (response.status ?? 0) / 100 == 2
            let effects = t.receive(response, now: now)
            return (effects, effects.isEmpty || repeated)
        }
        return (key, effects, absorbed)
    }

    /// A request matched to its server transaction (a retransmission, or the ACK of a non-2xx); nil when it
    /// starts a new one (or is the ACK of a 2xx).
    mutating func receive(request: SIPMessage, now: UInt64) -> (key: TransactionKey, effects: [TransactionEffect])? {
        let key = Self.serverKey(of: request)
        guard let slot = servers.find(key) else { return nil }
        return (key, servers.update(slot) { $0.receive(request, now: now) })
    }

    /// Passes the layer above's `response` through its server transaction, created for `request` (or for the
    /// response itself, which carries the request's Via and CSeq) when there is none yet.
    mutating func respond(_ response: SIPMessage, to request: SIPMessage?, source: Int, now: UInt64)
        -> (key: TransactionKey, effects: [TransactionEffect]) {
        var response = response
        response.keepFields()  // the key and the history read them
        let key = Self.key(response.branch, response.cseq?.method)
        if let slot = servers.find(key) {
            sources[slot] = source
            return (key, servers.update(slot) { $0.respond(response, now: now) })
        }
        var t = ServerTransaction(request: request ?? response, timers: timers)
        let effects = t.respond(response, now: now)
        let slot = servers.insert(key, t)  // none had the key (`find` found none)
        if slot < sources.count {
            sources[slot] = source
        } else {
            sources.append(source)  // slots count up one at a time
        }
        return (key, effects)
    }

    /// The ACK of server transaction `key`'s 2xx, found by its dialog: ends the transaction if it is Accepted.
    mutating func acknowledged(_ ack: SIPMessage, key: TransactionKey, now: UInt64) {
        guard let slot = servers.find(key) else { return }
        let effects = servers.update(slot) { t in t.state == .accepted ? t.receive(ack, now: now) : [] }
        if effects.contains(.terminated) { forget(key) }
    }

    /// Fires every timer due at `now`: each fired transaction's key, where it answers (server ones), and effects,
    /// client transactions first, each table's in the order they were added (as the array tables walked them).
    mutating func advance(to now: UInt64) -> [(key: TransactionKey, source: Int?, effects: [TransactionEffect])] {
        var fired: [(key: TransactionKey, source: Int?, effects: [TransactionEffect])] = []
        guard min(clients.nextDue, servers.nextDue) <= now else { return fired }
        due.removeAll(keepingCapacity: true)
        clients.popDue(now, into: &due)
        for slot in due {
            fired.append((clients.key(slot), nil, clients.update(slot) { $0.advance(to: now) }))
        }
        due.removeAll(keepingCapacity: true)
        servers.popDue(now, into: &due)
        for slot in due {
            fired.append((servers.key(slot), sources[slot], servers.update(slot) { $0.advance(to: now) }))
        }
        return fired
    }

    /// Forgets a terminated transaction.
    mutating func forget(_ key: TransactionKey) {
        if let slot = clients.find(key) { clients.remove(slot) }
        if let slot = servers.find(key) { servers.remove(slot) }
    }
}

/// A transaction's key (§17.1.3, §17.2.3): its top Via branch and CSeq method (a CANCEL shares its INVITE's
/// branch), kept as two strings rather than joined into one at every lookup, with a fingerprint of the branch made
/// once (`KeyPrint`) and compared first: an agent's tables were scanned (`AgentTable`, until 2026-12-08; now
/// `TransactionTable` indexes by the print), and each key passed over cost a `String` comparison of two different
/// branches (`_stringCompareWithSmolCheck`). At 2,400 calls/s a
/// caller's table holds the INVITEs of its last calls (Accepted for 64*T1, RFC 6026), a callee's the BYEs it
/// answered (Timer J), and `AgentTable.index(TransactionKey)` was the pool's largest symbol (issue 33).
struct TransactionKey: Hashable {
    let branch: String
    /// A `SIPMethod`, not its name: the six a user agent uses are numbers, so a key's copies and comparisons
    /// touch one string, the branch (issue 33, round three).
    let method: SIPMethod
    /// `KeyPrint` of the branch: 0 when it is not ASCII (then the strings alone decide, as `String ==` is
    /// canonical equivalence, not byte equality). `TransactionTable` indexes by it.
    let print: UInt64

    init(branch: String, method: SIPMethod) {
        self.branch = branch
        self.method = method
        print = KeyPrint.of(branch)
    }

    init(branch: String, method: String) { self.init(branch: branch, method: SIPMethod(method)) }

    static func == (a: TransactionKey, b: TransactionKey) -> Bool {
        guard a.print == b.print || a.print == 0 || b.print == 0 else { return false }
        return a.branch == b.branch && a.method == b.method
    }

    /// By the strings, as `==` decides (the fingerprint is 0 for some keys equal to others).
    func hash(into hasher: inout Hasher) {
        hasher.combine(branch)
        hasher.combine(method)
    }
}

/// A fingerprint of a string's UTF-8 bytes (its length and last eight bytes, where a branch's counter and random
/// part are, ours and Kamailio's alike), made once where a key is made, so that scanning a table compares one word
/// per entry before any string: two different prints mean two different strings. Never 0 for an ASCII string (the
/// only strings whose canonical equivalence is byte equality; every byte is checked); 0 for any other, which
/// decides nothing.
enum KeyPrint {
    @inline(__always)
    static func of(_ string: String) -> UInt64 {
        string.utf8.withContiguousStorageIfAvailable { of($0) } ?? 0
    }

    static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let n = bytes.count
        guard let base = bytes.baseAddress, n >= 8 else {
            var word: UInt64 = 0
            for i in 0..<n { word = word << 8 | UInt64(bytes[i]) }
            return word & 0x8080_8080_8080_8080 != 0 ? 0 : (word << 4 | UInt64(n)) | 1 << 63
        }
        let raw = UnsafeRawPointer(base)
        var seen: UInt64 = 0, i = 0
        while i + 8 < n {
            seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        let last = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        guard (seen | last) & 0x8080_8080_8080_8080 == 0 else { return 0 }
        return (last ^ UInt64(n) &* 0x9E37_79B9_7F4A_7C15) | 1
    }
}
