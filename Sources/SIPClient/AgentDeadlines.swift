import Heaps

/// When each agent next has timer work, so the pool's tick advances only the agents that are due instead of asking
/// every agent for its deadline (that scan grew with devices × time: 7 % of a bench run with 60 devices, and it
/// ran on every 10 ms tick whether or not anything was due).
///
/// A min-heap of (deadline, agent) with at most one live entry per agent: the earliest noted. A deadline that moves
/// later leaves the earlier entry in place; when it comes due the pool asks the agent again and notes what it says.
struct AgentDeadlines {
    private var heap = MinHeap<UInt64, Int>()
    /// Each agent's live entry in `heap`, by agent id (`.max`: none); entries that disagree with it are stale and
    /// skipped. An array indexed by the id, as the pool's tables are (`SlotTable`): a dictionary hashed the id at
    /// every note and pop (~10 k instructions a hold call).
    private var earliest: [UInt64] = []

    /// Notes `agent`'s next deadline (nil: none).
    mutating func note(_ agent: Int, _ due: UInt64?) {
        guard let due, agent >= 0 else { return }
        if agent >= earliest.count {
            earliest.append(contentsOf: repeatElement(.max, count: agent + 1 - earliest.count))
        }
        guard due < earliest[agent] else { return }
        earliest[agent] = due
        heap.push(agent, at: due)
    }

    /// Forgets `agent` (closed); its entries left in the heap are skipped.
    mutating func remove(_ agent: Int) {
        if agent >= 0, agent < earliest.count { earliest[agent] = .max }
    }

    /// The agents whose live entry is due at `now`, each once, earliest first; their entries are gone.
    mutating func popDue(_ now: UInt64) -> [Int] {
        var due: [Int] = []
        while let (at, agent) = heap.popDue(now) {
            guard agent < earliest.count, earliest[agent] == at else { continue }
            earliest[agent] = .max
            due.append(agent)
        }
        return due
    }
}
