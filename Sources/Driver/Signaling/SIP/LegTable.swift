/// A worker's SIP legs (or what waits on them) by device and Call-ID: a list per device, indexed by the device's
/// worker-local index, each searched by comparing Call-IDs. A device has a leg or two at a time, and the Call-ID a
/// SIP event carries is the agent's own string (`SIPStringCache`), so the comparison is one pointer test: no
/// hashing on a SIP event's path. `[LegKey: Value]` hashed the device with SipHash at each of a call's several
/// dozen lookups (issue 33).
///
/// Listed by device, then in the order each device's entries came (a dictionary listed them by hash).
struct LegTable<Value> {
    /// Each device's Call-IDs and, at the same positions, their values: kept apart so a value is moved in and
    /// out of its row whole (taking it out of an entry that held both copied it, 5 a call).
    private var callIDs: [[String]] = []
    private var values: [[Value]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private func position(_ key: LegKey) -> Int? {
        guard key.local < callIDs.count else { return nil }
        // Over the row's storage: the Call-IDs are compared where they lie, none copied out.
        return callIDs[key.local].withUnsafeBufferPointer { row in
            for i in row.indices where row[i] == key.callID { return i }
            return nil
        }
    }

    private mutating func makeRow(_ local: Int) {
        guard local >= callIDs.count else { return }
        callIDs.append(contentsOf: repeatElement([], count: local + 1 - callIDs.count))
        values.append(contentsOf: repeatElement([], count: local + 1 - values.count))
    }

    subscript(key: LegKey) -> Value? {
        get { position(key).map { values[key.local][$0] } }
        set {
            if let newValue { return insert(key, newValue) }
            removeValue(forKey: key)
        }
    }

    /// Puts `value` in as `key`'s entry, moved in (the subscript's setter copied an action's request once more
    /// through its optional, each of its strings retained and released, 140 a call).
    mutating func insert(_ key: LegKey, _ value: consuming Value) {
        if let i = position(key) {
            values[key.local][i] = value
            return
        }
        makeRow(key.local)
        callIDs[key.local].append(key.callID)
        values[key.local].append(value)
        count += 1
    }

    /// Changes the entry of `key` in place, when there is one; returns whether there was.
    @discardableResult
    mutating func update(_ key: LegKey, _ change: (inout Value) -> Void) -> Bool {
        guard let i = position(key) else { return false }
        change(&values[key.local][i])
        return true
    }

    /// Reads the entry of `key` where it lies (no copy of the value), nil when there is none.
    func read<R>(_ key: LegKey, _ body: (Value) -> R) -> R? {
        guard let i = position(key) else { return nil }
        return values[key.local].withUnsafeBufferPointer { body($0[i]) }
    }

    func contains(_ key: LegKey) -> Bool { position(key) != nil }

    /// Whether device `local` has any entry.
    func has(device local: Int) -> Bool { local < callIDs.count && !callIDs[local].isEmpty }

    @discardableResult
    mutating func removeValue(forKey key: LegKey) -> Value? {
        guard let i = position(key) else { return nil }
        count -= 1
        callIDs[key.local].remove(at: i)
        return values[key.local].remove(at: i)
    }

    /// Device `local`'s entries, in the order they came.
    func entries(of local: Int) -> [(key: LegKey, value: Value)] {
        guard local < callIDs.count else { return [] }
        return callIDs[local].indices.map { (LegKey(local: local, callID: callIDs[local][$0]), values[local][$0]) }
    }

    /// Every entry, by device.
    var all: [(key: LegKey, value: Value)] {
        callIDs.indices.flatMap { entries(of: $0) }
    }

    mutating func removeAll() {
        callIDs.removeAll()
        values.removeAll()
        count = 0
    }
}
