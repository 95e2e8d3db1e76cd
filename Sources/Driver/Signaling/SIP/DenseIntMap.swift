/// Small non-negative numbers to non-negative numbers, in an array indexed by the key (-1: none). SIP agents are
/// numbered from 1 by their pool and devices from 0 by the worker, so a SIP event finds its device, and an action
/// its agent, by one array read: `[Int: Int]` hashed the number with SipHash at each (issue 33). An agent number
/// grows by one per opening (a sleeping device's wake opens one), so the array holds a word per agent ever opened.
struct DenseIntMap {
    private var values: [Int] = []

    subscript(key: Int) -> Int? {
        get {
            guard key >= 0, key < values.count else { return nil }
            let value = values[key]
            return value < 0 ? nil : value
        }
        set {
            guard let newValue else {
                if key >= 0, key < values.count { values[key] = -1 }
                return
            }
            precondition(key >= 0 && newValue >= 0, "DenseIntMap holds non-negative numbers only")
            if key >= values.count { values.append(contentsOf: repeatElement(-1, count: key + 1 - values.count)) }
            values[key] = newValue
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Int) -> Int? {
        guard let value = self[key] else { return nil }
        values[key] = -1
        return value
    }
}
