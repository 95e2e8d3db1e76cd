import Heaps

/// When each agent next has timer work, so the pool's tick advances only the agents that are due instead of asking
/// every agent for its deadline (that scan grew with devices × time: 7 % of a bench run with 60 devices, and it
/// ran on every 10 ms tick whether or not anything was due).
///
/// A min-heap of (deadline, agent) with at most one live entry per agent: the earliest noted. A deadline that moves
/// later leaves the earlier entry in place; when it comes due the pool asks the agent again and notes what it says.
struct AgentDeadlines {
    private var heap = MinHeap<UInt64, Int>()
    /// Each agent's live entry in `heap`; entries that disagree with it are stale and skipped.
    private var earliest: [Int: UInt64] = [:]

    /// Notes `agent`'s next deadline (nil: none).
    mutating func note(_ agent: Int, _ due: UInt64?) {
        guard let due else { return }
        // One hash of `agent` (the pool notes after every datagram): a read and then a write hashed it twice.
        let earlier = Self.lower(&earliest[agent, default: .max], to: due)
        if earlier { heap.push(agent, at: due) }
    }

    /// Sets `current` to `due` when that is earlier; whether it was.
    private static func lower(_ current: inout UInt64, to due: UInt64) -> Bool {
        guard due < current else { return false }
        current = due
        return true
    }

    /// Forgets `agent` (closed); its entries left in the heap are skipped.
    mutating func remove(_ agent: Int) { earliest[agent] = nil }

    /// The agents whose live entry is due at `now`, each once, earliest first; their entries are gone.
    mutating func popDue(_ now: UInt64) -> [Int] {
        var due: [Int] = []
        while let (at, agent) = heap.popDue(now) {
            guard let i = earliest.index(forKey: agent), earliest.values[i] == at else { continue }
            earliest.remove(at: i)
            due.append(agent)
        }
        return due
    }
}
