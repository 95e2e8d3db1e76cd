/// A worker's SIP legs (or what waits on them) by device and Call-ID: a list per device, indexed by the device's
/// worker-local index, each searched by comparing Call-IDs. A device has a leg or two at a time, and the Call-ID a
/// SIP event carries is the agent's own string (`SIPStringCache`), so the comparison is one pointer test: no
/// hashing on a SIP event's path. `[LegKey: Value]` hashed the device with SipHash at each of a call's several
/// dozen lookups (issue 33).
///
/// Listed by device, then in the order each device's entries came (a dictionary listed them by hash).
struct LegTable<Value> {
    private struct Entry {
        let callID: String
        var value: Value
    }

    private var rows: [[Entry]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private func position(_ key: LegKey) -> Int? {
        guard key.local < rows.count else { return nil }
        // Over the row's storage: the entries are compared where they lie, no Call-ID or value copied out.
        return rows[key.local].withUnsafeBufferPointer { row in
            for i in row.indices where row[i].callID == key.callID { return i }
            return nil
        }
    }

    subscript(key: LegKey) -> Value? {
        get { position(key).map { rows[key.local][$0].value } }
        set {
            if let i = position(key) {
                if let newValue {
                    rows[key.local][i].value = newValue
                } else {
                    rows[key.local].remove(at: i)
                    count -= 1
                }
            } else if let newValue {
                if key.local >= rows.count {
                    rows.append(contentsOf: repeatElement([], count: key.local + 1 - rows.count))
                }
                rows[key.local].append(Entry(callID: key.callID, value: newValue))
                count += 1
            }
        }
    }

    /// Puts `value` in as `key`'s entry, moved in (the subscript's setter copied an action's request once more
    /// through its optional, each of its strings retained and released, 140 a call).
    mutating func insert(_ key: LegKey, _ value: consuming Value) {
        if let i = position(key) {
            rows[key.local][i].value = value
            return
        }
        if key.local >= rows.count {
            rows.append(contentsOf: repeatElement([], count: key.local + 1 - rows.count))
        }
        rows[key.local].append(Entry(callID: key.callID, value: value))
        count += 1
    }

    /// Changes the entry of `key` in place, when there is one; returns whether there was.
    @discardableResult
    mutating func update(_ key: LegKey, _ change: (inout Value) -> Void) -> Bool {
        guard let i = position(key) else { return false }
        change(&rows[key.local][i].value)
        return true
    }

    /// Reads the entry of `key` where it lies (no copy of the value), nil when there is none.
    func read<R>(_ key: LegKey, _ body: (Value) -> R) -> R? {
        guard let i = position(key) else { return nil }
        return rows[key.local].withUnsafeBufferPointer { body($0[i].value) }
    }

    func contains(_ key: LegKey) -> Bool { position(key) != nil }

    /// Whether device `local` has any entry.
    func has(device local: Int) -> Bool { local < rows.count && !rows[local].isEmpty }

    @discardableResult
    mutating func removeValue(forKey key: LegKey) -> Value? {
        guard let i = position(key) else { return nil }
        count -= 1
        return rows[key.local].remove(at: i).value
    }

    /// Device `local`'s entries, in the order they came.
    func entries(of local: Int) -> [(key: LegKey, value: Value)] {
        guard local < rows.count else { return [] }
        return rows[local].map { (LegKey(local: local, callID: $0.callID), $0.value) }
    }

    /// Every entry, by device.
    var all: [(key: LegKey, value: Value)] {
        rows.indices.flatMap { entries(of: $0) }
    }

    mutating func removeAll() {
        rows.removeAll()
        count = 0
    }
}
