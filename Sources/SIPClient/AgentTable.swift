/// One agent's table of a few entries (its calls, its dialogs): entries in an array,
/// found by comparing keys one after the other. A user agent is one phone: it holds a handful of each at a time,
/// and a scan of three keys costs less than one `Dictionary` lookup, which hashed the Call-ID or branch `String`
/// with SipHash on every find and copied the value out and back on every change (issue 33: ~180 k instructions
/// per call in hashing alone). The subscript's `_modify` changes an entry in place; entries keep the order they
/// were added in. The transactions left it on 2026-12-08 (`TransactionTable`): finished ones linger 32 s over UDP,
/// so an agent holds dozens, not a few.
///
/// The `Dictionary` surface the agent uses (subscript, `removeValue(forKey:)`, `keys`, `values`), so the tables
/// read as before.
struct AgentTable<Key: Equatable, Value> {
    private var keyList: [Key] = []
    /// Optional so that `_modify` can take an entry out while it changes (no second reference, no copy).
    private var valueList: [Value?] = []

    init() {}

    private func index(_ key: Key) -> Int? {
        var i = 0
        while i < keyList.count {
            if keyList[i] == key { return i }
            i += 1
        }
        return nil
    }

    subscript(key: Key) -> Value? {
        get { index(key).flatMap { valueList[$0] } }
        _modify {
            var value: Value?
            if let i = index(key) {
                swap(&value, &valueList[i])
                defer {
                    if value != nil {
                        swap(&value, &valueList[i])
                    } else {
                        keyList.remove(at: i)
                        valueList.remove(at: i)
                    }
                }
                yield &value
            } else {
                defer {
                    if value != nil {
                        keyList.append(key)
                        valueList.append(value)
                    }
                }
                yield &value
            }
        }
    }

    /// Runs `body` on entry `key` in place; nil (and `body` not run) when there is none.
    mutating func update<R>(_ key: Key, _ body: (inout Value) -> R) -> R? {
        // Changed where it lies: taking it out and putting it back in a `defer` copied the entry back and
        // destroyed the local, for every transaction event (~30 transaction copies a call; issue 33).
        guard let i = index(key), valueList[i] != nil else { return nil }
        return body(&valueList[i]!)
    }

    func contains(_ key: Key) -> Bool { index(key) != nil }

    var count: Int { keyList.count }
    var isEmpty: Bool { keyList.isEmpty }
    /// In the order the entries were added.
    var keys: [Key] { keyList }
    var values: [Value] { valueList.compactMap { $0 } }

    /// Removes every entry whose key passes `test`, in place (no copy of the keys to filter first).
    mutating func removeAll(where test: (Key) -> Bool) {
        var i = 0
        while i < keyList.count {
            if test(keyList[i]) {
                keyList.remove(at: i)
                valueList.remove(at: i)
            } else {
                i += 1
            }
        }
    }

    /// Every entry gone, the arrays' storage kept for the next ones (a parked agent's tables at its sleep: the
    /// next wake adds as many again, and growing each array from empty reallocated it two or three times).
    mutating func removeAll() {
        keyList.removeAll(keepingCapacity: true)
        valueList.removeAll(keepingCapacity: true)
    }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let i = index(key) else { return nil }
        keyList.remove(at: i)
        return valueList.remove(at: i)
    }
}
