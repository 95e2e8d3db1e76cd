/// A table keyed by a small non-negative integer, kept as an array indexed by the key: the pool's agents and
/// sockets by agent id (ids count up from 1), its sockets by file descriptor (the kernel hands out the lowest free
/// one), each agent's next deadline. As `[Int: Value]` every datagram hashed its key with SipHash four to six
/// times (the socket by descriptor, the agent, its socket again, the deadline note), ~40 k instructions a hold
/// call in `Hasher` alone (issue 33, callgrind of `scripts/bench-sip-instructions.sh`).
///
/// The array is as long as the largest key set so far, so it grows with the agents a run has opened (8 bytes
/// each for a class reference), not with those open; a closed agent's slot stays, empty. Keys are never reused,
/// which keeps an id the Driver still holds from reaching a newer agent.
///
/// The `Dictionary` surface the pool uses, so its code reads as before; `keys` and `values` come in key order.
struct SlotTable<Value> {
    private var slots: [Value?] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    subscript(key: Int) -> Value? {
        get { key >= 0 && key < slots.count ? slots[key] : nil }
        set {
            guard key >= 0 else { return }
            if key >= slots.count {
                guard newValue != nil else { return }
                slots.append(contentsOf: repeatElement(nil, count: key + 1 - slots.count))
            }
            let had = slots[key] != nil
            slots[key] = newValue
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }

    /// A file descriptor's entry.
    subscript(key: Int32) -> Value? {
        get { self[Int(key)] }
        set { self[Int(key)] = newValue }
    }

    @discardableResult
    mutating func removeValue(forKey key: Int) -> Value? {
        guard let value = self[key] else { return nil }
        self[key] = nil
        return value
    }

    /// The keys that hold a value, smallest first.
    var keys: [Int] { slots.indices.filter { slots[$0] != nil } }

    /// The values, in key order.
    var values: [Value] { slots.compactMap { $0 } }
}
