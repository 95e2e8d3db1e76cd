import Heaps

/// When each agent next has timer work, so the pool's timer advances only the agents that are due instead of asking
/// every agent for its deadline (that scan grew with devices × time: 7 % of a bench run with 60 devices).
///
/// A min-heap of (deadline, agent) with at most one live entry per agent. A deadline that moves earlier pushes a new
/// entry (the old one is stale and skipped); one that moves later is only remembered (`noted`), and its entry is
/// moved to it when it comes to the top: the pool's timer is armed for the top (`nextDue`), and a top that no agent
/// is due at would wake the thread for nothing (one wake per request answered before its retransmission timer).
struct AgentDeadlines {
    private var heap = MinHeap<UInt64, Int>()
    /// By agent id (an array indexed by the id, as the pool's tables are: a dictionary hashed it at every note; one
    /// array of pairs, so a note checks one buffer's uniqueness), `.max` for none: the deadline of the agent's live
    /// entry in `heap` (entries that disagree are stale), and its deadline as last noted (never earlier).
    private var slots: [(earliest: UInt64, noted: UInt64)] = []

    /// Notes `agent`'s next deadline (nil: none).
    mutating func note(_ agent: Int, _ due: UInt64?) {
        guard agent >= 0 else { return }
        if agent >= slots.count {
            slots.append(contentsOf: repeatElement((.max, .max), count: agent + 1 - slots.count))
        }
        let due = due ?? .max
        let pushed = slots.withUnsafeMutableBufferPointer { p in
            p[agent].noted = due
            guard due < p[agent].earliest else { return false }
            p[agent].earliest = due
            return true
        }
        if pushed { heap.push(agent, at: due) }
    }

    /// Forgets `agent` (closed); its entries left in the heap are skipped.
    mutating func remove(_ agent: Int) {
        guard agent >= 0, agent < slots.count else { return }
        slots[agent] = (.max, .max)
    }

    /// The earliest deadline of any agent (`.max`: none): the top entry once stale entries are dropped and a moved
    /// one is put at its agent's noted deadline.
    mutating func nextDue() -> UInt64 {
        while let (at, agent) = heap.top {
            guard settleTop(at, agent) else { continue }
            return at
        }
        return .max
    }

    /// Whether the top entry `(at, agent)` stands; if not it is gone (stale) or moved later (a new entry pushed).
    private mutating func settleTop(_ at: UInt64, _ agent: Int) -> Bool {
        guard agent < slots.count, slots[agent].earliest == at else {
            heap.pop()
            return false
        }
        let due = slots[agent].noted
        if due == at { return true }
        heap.pop()
        slots[agent].earliest = due
        if due != .max { heap.push(agent, at: due) }
        return false
    }

    /// The agents due at `now`, each once, earliest first; their entries are gone.
    mutating func popDue(_ now: UInt64) -> [Int] {
        var due: [Int] = []
        popDue(now, into: &due)
        return due
    }

    /// `popDue(_:)` appended to `due` (the pool's kept list: no array allocated per tick).
    mutating func popDue(_ now: UInt64, into due: inout [Int]) {
        while let (at, agent) = heap.top, at <= now {
            guard settleTop(at, agent) else { continue }
            heap.pop()
            slots[agent] = (.max, .max)
            due.append(agent)
        }
    }
}
