/// A recorder's per-metric states (histograms or counters) in arrays indexed by `Metric.key`: recording finds
/// a state by two array reads, no name hashed. Names are kept beside the states for reading, merging and encoding.
///
/// `slots[key]` is the state's index in `states` (-1: no state yet), so states stay dense in first-use order
/// while `slots` grows only to the highest key this recorder saw (4 bytes a key).
struct MetricTable<State: Sendable>: Sendable {
    private var slots: [Int32] = []
    /// The states in first-use order, with their metrics' keys and names at the same index.
    private(set) var states: [State] = []
    private(set) var keys: [Int32] = []
    private(set) var names: [String] = []

    var isEmpty: Bool { states.isEmpty }
    var count: Int { states.count }

    /// The index in `states` of the metric with `key`, nil when it has none.
    @inline(__always)
    func index(of key: Int32) -> Int? {
        let k = Int(key)
        guard k < slots.count else { return nil }
        let slot = slots[k]
        return slot < 0 ? nil : Int(slot)
    }

    /// The index of the metric's state, adding `make()` for it at its first use.
    @inline(__always)
    mutating func index(of metric: Metric, orAdd make: () -> State) -> Int {
        if let i = index(of: metric.key) { return i }
        return add(key: metric.key, name: metric.name, make())
    }

    @inline(never)
    private mutating func add(key: Int32, name: String, _ state: State) -> Int {
        let k = Int(key)
        if k >= slots.count { slots.append(contentsOf: repeatElement(-1, count: k + 1 - slots.count)) }
        slots[k] = Int32(states.count)
        states.append(state)
        keys.append(key)
        names.append(name)
        return states.count - 1
    }

    /// The metric at `index` (its key and name), to find the same metric in another table.
    func metric(at index: Int) -> Metric { Metric(key: keys[index], name: names[index]) }

    /// The state of the metric named `name`, nil when it has none (reads by name: the name's key, no interning).
    func state(named name: String) -> State? {
        guard let key = MetricKeys.existingKey(for: name), let i = index(of: key) else { return nil }
        return states[i]
    }

    /// Sets the state of `name` (decoding, segments, merging), adding it when new.
    mutating func set(_ name: String, _ state: State) {
        let metric = Metric(named: name)
        let i = index(of: metric) { state }
        states[i] = state
    }

    /// The state at `index`, to change in place.
    @inline(__always)
    subscript(index: Int) -> State {
        get { states[index] }
        _modify { yield &states[index] }
    }

    /// Every state by name (reads, encoding).
    func byName<T>(_ transform: (State) -> T) -> [String: T] {
        var result: [String: T] = [:]
        result.reserveCapacity(states.count)
        for i in states.indices { result[names[i]] = transform(states[i]) }
        return result
    }
}
