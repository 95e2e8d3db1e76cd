/// What an agent sent and received by method and status, counted as the messages go and folded into its
/// `SIPCounters` when they are read. The books are `Dictionary`s keyed by method name and status, and every
/// message counted there hashed its key (a method's `String` with SipHash) on the send and receive path; an agent
/// uses a handful of methods and statuses, so a short list scanned is cheaper (issue 33).
struct MessageTally {
    /// Requests by method name: sent and received, in the order first counted.
    private var methods: [String] = []
    private var requestsSent: [Int] = []
    private var requestsReceived: [Int] = []
    /// Responses by status code: sent and received.
    private var statuses: [Int] = []
    private var responsesSent: [Int] = []
    private var responsesReceived: [Int] = []
    /// Entries that are in the counters' books only once folded: a key counted 0 (a retransmission's) is booked
    /// as the books' `[key, default: 0] += 0` booked it.
    private var sentMethods: [Bool] = []
    private var receivedMethods: [Bool] = []
    private var sentStatuses: [Bool] = []
    private var receivedStatuses: [Bool] = []
    private(set) var isEmpty = true

    private mutating func method(_ name: String) -> Int {
        var i = 0
        while i < methods.count {
            if methods[i] == name { return i }
            i += 1
        }
        methods.append(name)
        requestsSent.append(0)
        requestsReceived.append(0)
        sentMethods.append(false)
        receivedMethods.append(false)
        return i
    }

    private mutating func status(_ code: Int) -> Int {
        var i = 0
        while i < statuses.count {
            if statuses[i] == code { return i }
            i += 1
        }
        statuses.append(code)
        responsesSent.append(0)
        responsesReceived.append(0)
        sentStatuses.append(false)
        receivedStatuses.append(false)
        return i
    }

    mutating func requestSent(_ name: String, _ n: Int) {
        let i = method(name)
        requestsSent[i] += n
        sentMethods[i] = true
        isEmpty = false
    }

    mutating func requestReceived(_ name: String) {
        let i = method(name)
        requestsReceived[i] += 1
        receivedMethods[i] = true
        isEmpty = false
    }

    mutating func responseSent(_ code: Int, _ n: Int) {
        let i = status(code)
        responsesSent[i] += n
        sentStatuses[i] = true
        isEmpty = false
    }

    mutating func responseReceived(_ code: Int) {
        let i = status(code)
        responsesReceived[i] += 1
        receivedStatuses[i] = true
        isEmpty = false
    }

    /// Adds every count to `books` and starts again from none (the keys stay, so the scans stay short).
    mutating func fold(into books: inout SIPCounters) {
        guard !isEmpty else { return }
        add(to: &books)
        for i in methods.indices {
            requestsSent[i] = 0
            requestsReceived[i] = 0
            sentMethods[i] = false
            receivedMethods[i] = false
        }
        for i in statuses.indices {
            responsesSent[i] = 0
            responsesReceived[i] = 0
            sentStatuses[i] = false
            receivedStatuses[i] = false
        }
        isEmpty = true
    }

    /// Adds every count to `books` and keeps them (a pool's total read at the end of a run: the agent's own books
    /// stay as they are, and no book of its own is made for counts that only pass through).
    func add(to books: inout SIPCounters) {
        guard !isEmpty else { return }
        for i in methods.indices {
            if sentMethods[i] { books.requestsSent[methods[i], default: 0] += requestsSent[i] }
            if receivedMethods[i] { books.requestsReceived[methods[i], default: 0] += requestsReceived[i] }
        }
        for i in statuses.indices {
            if sentStatuses[i] { books.responsesSent[statuses[i], default: 0] += responsesSent[i] }
            if receivedStatuses[i] { books.responsesReceived[statuses[i], default: 0] += responsesReceived[i] }
        }
    }

    /// Adds `other`'s counts to this tally's: the pool sums its agents' tallies by the short lists (method names
    /// compared, no hashing) and makes the books' dictionaries once from the sum, where adding each agent's
    /// counts to the books hashed every method and status once per agent (issue 33).
    mutating func add(_ other: MessageTally) {
        guard !other.isEmpty else { return }
        for i in other.methods.indices where other.sentMethods[i] || other.receivedMethods[i] {
            let j = method(other.methods[i])
            if other.sentMethods[i] {
                requestsSent[j] += other.requestsSent[i]
                sentMethods[j] = true
            }
            if other.receivedMethods[i] {
                requestsReceived[j] += other.requestsReceived[i]
                receivedMethods[j] = true
            }
        }
        for i in other.statuses.indices where other.sentStatuses[i] || other.receivedStatuses[i] {
            let j = status(other.statuses[i])
            if other.sentStatuses[i] {
                responsesSent[j] += other.responsesSent[i]
                sentStatuses[j] = true
            }
            if other.receivedStatuses[i] {
                responsesReceived[j] += other.responsesReceived[i]
                receivedStatuses[j] = true
            }
        }
        isEmpty = false
    }
}
