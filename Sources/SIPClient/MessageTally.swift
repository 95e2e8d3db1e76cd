import SIP

/// What an agent sent and received by method and status, counted as the messages go and folded into its
/// `SIPCounters` when they are read. The books are `Dictionary`s keyed by method name and status, and every
/// message counted there hashed its key (a method's `String` with SipHash) on the send and receive path; an agent
/// uses a handful of methods and statuses, so a short list scanned is cheaper (issue 33).
///
/// One list of entries per kind (an entry holds both directions' counts): ten parallel lists were ten heap
/// objects per agent, each checked for uniqueness and reached through its own pointer at every message.
struct MessageTally {
    /// One method's or status's counts. `sent`/`received` mark the entries that are in the books only once
    /// folded: a key counted 0 (a retransmission's) is booked as the books' `[key, default: 0] += 0` booked it.
    private struct Counts<Key> {
        let key: Key
        var sentCount = 0
        var receivedCount = 0
        var sent = false
        var received = false

        init(_ key: Key) { self.key = key }

        mutating func reset() {
            sentCount = 0
            receivedCount = 0
            sent = false
            received = false
        }
    }

    /// Requests by method, in the order first counted. By `SIPMethod`, compared as a number for the six a user
    /// agent uses: by its name, each count took the method's `String` (a retain and a release) and compared names
    /// (issue 33, round three).
    private var methods: [Counts<SIPMethod>] = []
    /// Responses by status code.
    private var statuses: [Counts<Int>] = []
    private(set) var isEmpty = true
    /// Room a list gets on its first entry: a call's methods (INVITE, ACK, BYE, REGISTER) and statuses (100, 180,
    /// 200, 401) fit, where growing one entry at a time reallocated each list twice per agent (issue 33).
    private static let firstRoom = 4

    private mutating func method(_ method: SIPMethod) -> Int {
        var i = 0
        while i < methods.count {
            if methods[i].key == method { return i }
            i += 1
        }
        if methods.isEmpty { methods.reserveCapacity(Self.firstRoom) }
        methods.append(Counts(method))
        return i
    }

    private mutating func status(_ code: Int) -> Int {
        var i = 0
        while i < statuses.count {
            if statuses[i].key == code { return i }
            i += 1
        }
        if statuses.isEmpty { statuses.reserveCapacity(Self.firstRoom) }
        statuses.append(Counts(code))
        return i
    }

    mutating func requestSent(_ method: SIPMethod, _ n: Int) {
        let i = self.method(method)
        methods[i].sentCount += n
        methods[i].sent = true
        isEmpty = false
    }

    mutating func requestReceived(_ method: SIPMethod) {
        let i = self.method(method)
        methods[i].receivedCount += 1
        methods[i].received = true
        isEmpty = false
    }

    mutating func responseSent(_ code: Int, _ n: Int) {
        let i = status(code)
        statuses[i].sentCount += n
        statuses[i].sent = true
        isEmpty = false
    }

    mutating func responseReceived(_ code: Int) {
        let i = status(code)
        statuses[i].receivedCount += 1
        statuses[i].received = true
        isEmpty = false
    }

    /// Adds every count to `books` and starts again from none (the keys stay, so the scans stay short).
    mutating func fold(into books: inout SIPCounters) {
        guard !isEmpty else { return }
        add(to: &books)
        for i in methods.indices { methods[i].reset() }
        for i in statuses.indices { statuses[i].reset() }
        isEmpty = true
    }

    /// Adds every count to `books` and keeps them (a pool's total read at the end of a run: the agent's own books
    /// stay as they are, and no book of its own is made for counts that only pass through).
    func add(to books: inout SIPCounters) {
        guard !isEmpty else { return }
        for m in methods {
            if m.sent { books.requestsSent[m.key.rawValue, default: 0] += m.sentCount }
            if m.received { books.requestsReceived[m.key.rawValue, default: 0] += m.receivedCount }
        }
        for s in statuses {
            if s.sent { books.responsesSent[s.key, default: 0] += s.sentCount }
            if s.received { books.responsesReceived[s.key, default: 0] += s.receivedCount }
        }
    }

    /// Adds `other`'s counts to this tally's: the pool sums its agents' tallies by the short lists (method names
    /// compared, no hashing) and makes the books' dictionaries once from the sum, where adding each agent's
    /// counts to the books hashed every method and status once per agent (issue 33).
    mutating func add(_ other: MessageTally) {
        guard !other.isEmpty else { return }
        for m in other.methods where m.sent || m.received {
            let j = method(m.key)
            Self.merge(m, into: &methods[j])
        }
        for s in other.statuses where s.sent || s.received {
            let j = status(s.key)
            Self.merge(s, into: &statuses[j])
        }
        isEmpty = false
    }

    private static func merge<Key>(_ other: Counts<Key>, into counts: inout Counts<Key>) {
        if other.sent {
            counts.sentCount += other.sentCount
            counts.sent = true
        }
        if other.received {
            counts.receivedCount += other.receivedCount
            counts.received = true
        }
    }
}
