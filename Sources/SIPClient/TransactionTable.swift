import SIP

/// What a transaction table reads of its values: the deadline it keeps in its heap.
protocol TimedTransaction {
    var nextDeadline: UInt64? { get }
}

extension ClientTransaction: TimedTransaction {}
extension ServerTransaction: TimedTransaction {}

/// One agent's client or server transactions, found by key and timed without a walk over them all: over UDP a
/// finished transaction stays 32 s to absorb retransmissions (Timer D, J; RFC 6026's M), so in the hold bench a
/// device holds ~80, and the scanned `AgentTable` compared every key for each message that matched nothing
/// (every new request) and walked every transaction for the agent's next deadline (issue 33, round three: the
/// worker's busy share rose ~12 % over a run's first 10 s as the tables filled).
///
/// - Entries lie in slots (arrays by slot; a freed slot is reused), the slot a number the caller may keep for
///   the calls that follow a `find`.
/// - An open-addressing index (linear probing, backward-shift deletion) by the key's `KeyPrint`, made once with
///   the key: one multiply for the bucket, the print compared before any string. A key whose print is 0 (a
///   branch not ASCII, whose `String ==` is canonical equivalence) is kept apart and compared by its strings, and
///   a lookup by one scans every key: only a foreign branch pays that, and it matches as `String ==` says.
/// - The deadlines in an indexed heap (`AgentDeadlines`, by slot), noted after every change of an entry.
/// - Each entry's rank of addition (a replaced entry keeps its own): due timers fire in that order, the order
///   the array table walked them in, so runs stay the same.
struct TransactionTable<Value: TimedTransaction> {
    /// By slot; nil: vacant.
    private var keys: [TransactionKey?] = []
    private var stored: [Value?] = []
    private var ranks: [UInt64] = []
    private var vacant: [Int] = []
    /// The index, a power of two long (or empty): each bucket's print and slot + 1 (0: empty bucket).
    private var buckets: [(print: UInt64, slot: Int32)] = []
    private var indexed = 0
    /// The slots whose key's print is 0 (not in `buckets`).
    private var unprinted: [Int] = []
    private var deadlines = AgentDeadlines()
    private var added: UInt64 = 0
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The earliest deadline of any entry; `.max`: none.
    var nextDue: UInt64 { deadlines.nextDue() }

    /// The slot of entry `key`, nil when there is none.
    func find(_ key: TransactionKey) -> Int? {
        let print = key.print
        guard print != 0 else { return keys.firstIndex { $0 == key } }
        if indexed > 0 {
            let mask = buckets.count - 1
            var b = Self.home(print, mask)
            while buckets[b].slot != 0 {
                let slot = Int(buckets[b].slot) - 1
                if buckets[b].print == print, keys[slot] == key { return slot }
                b = (b + 1) & mask
            }
        }
        for slot in unprinted where keys[slot] == key { return slot }
        return nil
    }

    func contains(_ key: TransactionKey) -> Bool { find(key) != nil }

    /// The key of the entry in `slot`.
    func key(_ slot: Int) -> TransactionKey { keys[slot]! }

    /// The entry in `slot`, copied.
    subscript(slot: Int) -> Value { stored[slot]! }

    /// Adds entry `key`, which the caller knows the table lacks; returns its slot.
    @discardableResult
    mutating func insert(_ key: TransactionKey, _ value: Value) -> Int {
        let due = value.nextDeadline
        let slot: Int
        if let reused = vacant.popLast() {
            slot = reused
            keys[slot] = key
            stored[slot] = value
            ranks[slot] = added
        } else {
            slot = keys.count
            keys.append(key)
            stored.append(value)
            ranks.append(added)
        }
        added += 1
        count += 1
        if key.print == 0 { unprinted.append(slot) } else { index(key.print, slot) }
        deadlines.note(slot, due)
        return slot
    }

    /// Puts `value` in `slot` in place of its entry, which keeps its key and rank; returns the entry replaced.
    mutating func replace(_ slot: Int, with value: Value) -> Value {
        var old: Value? = value
        swap(&old, &stored[slot])
        deadlines.note(slot, value.nextDeadline)
        return old!
    }

    /// Runs `body` on the entry in `slot` in place, then notes its deadline again.
    mutating func update<R>(_ slot: Int, _ body: (inout Value) -> R) -> R {
        let result = body(&stored[slot]!)
        deadlines.note(slot, stored[slot]!.nextDeadline)
        return result
    }

    /// Takes the entry in `slot` out.
    @discardableResult
    mutating func remove(_ slot: Int) -> Value {
        let print = keys[slot]!.print
        if print == 0 {
            unprinted.removeAll { $0 == slot }
        } else {
            unindex(print, slot)
        }
        keys[slot] = nil
        var value: Value?
        swap(&value, &stored[slot])
        vacant.append(slot)
        count -= 1
        deadlines.remove(slot)
        return value!
    }

    /// Appends to `due` the slots of the entries due at `now`, in their order of addition, their deadlines taken
    /// out of the heap: the caller runs each through `update`, which notes the next.
    mutating func popDue(_ now: UInt64, into due: inout [Int]) {
        let first = due.count
        deadlines.popDue(now, into: &due)
        // Insertion sort: one or two are due at a time.
        var i = first + 1
        while i < due.count {
            let slot = due[i], rank = ranks[slot]
            var j = i
            while j > first, ranks[due[j - 1]] > rank {
                due[j] = due[j - 1]
                j -= 1
            }
            due[j] = slot
            i += 1
        }
    }

    /// The entries, in their order of addition (tests: what the array table walked).
    var entries: [(key: TransactionKey, value: Value)] {
        keys.indices.filter { keys[$0] != nil }.sorted { ranks[$0] < ranks[$1] }.map { (keys[$0]!, stored[$0]!) }
    }

    /// Every entry gone, the storage kept for the next (a parked agent's sleep: `TransactionLayer.reset`).
    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        stored.removeAll(keepingCapacity: true)
        ranks.removeAll(keepingCapacity: true)
        vacant.removeAll(keepingCapacity: true)
        unprinted.removeAll(keepingCapacity: true)
        for b in buckets.indices { buckets[b] = (0, 0) }
        indexed = 0
        deadlines.removeAll()
        added = 0
        count = 0
    }

    // MARK: - The index

    /// A print's first bucket: the print's bits mixed by a multiply, the high half taken.
    @inline(__always)
    private static func home(_ print: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (print &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private mutating func index(_ print: UInt64, _ slot: Int) {
        if (indexed + 1) * 2 > buckets.count { grow() }
        let mask = buckets.count - 1
        var b = Self.home(print, mask)
        while buckets[b].slot != 0 { b = (b + 1) & mask }
        buckets[b] = (print, Int32(slot + 1))
        indexed += 1
    }

    /// Twice the buckets (8 at first), every indexed entry placed again.
    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: (print: 0, slot: 0), count: max(8, old.count * 2))
        let mask = buckets.count - 1
        for bucket in old where bucket.slot != 0 {
            var b = Self.home(bucket.print, mask)
            while buckets[b].slot != 0 { b = (b + 1) & mask }
            buckets[b] = bucket
        }
    }

    /// Empties the bucket of `slot`, then moves back each entry after it in the run whose home is not between the
    /// hole and the entry's bucket (cyclically), so every probe still reaches its entry without tombstones.
    private mutating func unindex(_ print: UInt64, _ slot: Int) {
        let mask = buckets.count - 1, mark = Int32(slot + 1)
        var hole = Self.home(print, mask)
        while buckets[hole].slot != mark { hole = (hole + 1) & mask }
        var j = hole
        while true {
            j = (j + 1) & mask
            let bucket = buckets[j]
            guard bucket.slot != 0 else { break }
            let home = Self.home(bucket.print, mask)
            let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !stays {
                buckets[hole] = bucket
                hole = j
            }
        }
        buckets[hole] = (0, 0)
        indexed -= 1
    }
}
