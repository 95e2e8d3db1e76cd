/// When each agent next has timer work, so the pool's timer advances only the agents that are due instead of asking
/// every agent for its deadline (that scan grew with devices × time: 7 % of a bench run with 60 devices).
///
/// A min-heap of (deadline, agent) with exactly one entry per agent that has a deadline, each agent's place in it
/// kept by id, so a deadline that moves is sifted where its entry lies (earlier: up, later: down) and one that goes
/// is taken out. Until 2026-12-07 it was a `MinHeap` with lazy cancellation: every deadline that moved earlier
/// pushed another entry, and the stale ones were popped when they came to the top (17.5 pops a call in the hold
/// bench for 5 agents due; the heap grew with them, so each pop sifted deeper, touching more cache lines at rate).
/// Equal deadlines come out by agent id. Each agent's transactions are timed by one too, by slot
/// (`TransactionTable`; an "agent" below is then a slot).
struct AgentDeadlines {
    /// The heap, earliest first at index 0; ties by agent id.
    private var heap: [(at: UInt64, agent: Int)] = []
    /// By agent id (an array indexed by the id, as the pool's tables are): its entry's index in `heap`, -1 for none.
    private var places: [Int] = []

    /// Notes `agent`'s next deadline (nil: none).
    mutating func note(_ agent: Int, _ due: UInt64?) {
        guard agent >= 0 else { return }
        if agent >= places.count { places.append(contentsOf: repeatElement(-1, count: agent + 1 - places.count)) }
        let i = places[agent]
        guard let due else {
            if i >= 0 { take(i) }
            return
        }
        if i < 0 {
            heap.append((due, agent))
            places[agent] = heap.count - 1
            siftUp(heap.count - 1)
        } else if due < heap[i].at {
            heap[i].at = due
            siftUp(i)
        } else if due > heap[i].at {
            heap[i].at = due
            siftDown(i)
        }
    }

    /// Every entry gone, the storage kept (a transaction table's at its agent's sleep: `TransactionTable`).
    mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
        places.removeAll(keepingCapacity: true)
    }

    /// Forgets `agent` (closed).
    mutating func remove(_ agent: Int) {
        guard agent >= 0, agent < places.count, places[agent] >= 0 else { return }
        take(places[agent])
    }

    /// The earliest deadline of any agent (`.max`: none).
    func nextDue() -> UInt64 { heap.first?.at ?? .max }

    /// The agents due at `now`, each once, earliest first; their entries are gone.
    mutating func popDue(_ now: UInt64) -> [Int] {
        var due: [Int] = []
        popDue(now, into: &due)
        return due
    }

    /// `popDue(_:)` appended to `due` (the pool's kept list: no array allocated per tick).
    mutating func popDue(_ now: UInt64, into due: inout [Int]) {
        while let first = heap.first, first.at <= now {
            take(0)
            due.append(first.agent)
        }
    }

    /// Takes entry `i` out: the last entry moves into its place and is sifted whichever way it belongs.
    private mutating func take(_ i: Int) {
        places[heap[i].agent] = -1
        let last = heap.removeLast()
        guard i < heap.count else { return }
        heap[i] = last
        places[last.agent] = i
        if i > 0, Self.before(last, heap[(i - 1) / 2]) { siftUp(i) } else { siftDown(i) }
    }

    private static func before(_ a: (at: UInt64, agent: Int), _ b: (at: UInt64, agent: Int)) -> Bool {
        a.at < b.at || (a.at == b.at && a.agent < b.agent)
    }

    /// The sifts write both arrays through their buffers: a write through the subscript checked the array's
    /// uniqueness each time (two per level).
    private mutating func siftUp(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { heap in
            places.withUnsafeMutableBufferPointer { places in
                var child = start
                let entry = heap[child]
                while child > 0 {
                    let parent = (child - 1) / 2
                    guard Self.before(entry, heap[parent]) else { break }
                    heap[child] = heap[parent]
                    places[heap[child].agent] = child
                    child = parent
                }
                heap[child] = entry
                places[entry.agent] = child
            }
        }
    }

    private mutating func siftDown(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { heap in
            places.withUnsafeMutableBufferPointer { places in
                var parent = start
                let entry = heap[parent], count = heap.count
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    guard left < count else { break }
                    var smallest = left
                    if right < count, Self.before(heap[right], heap[left]) { smallest = right }
                    guard Self.before(heap[smallest], entry) else { break }
                    heap[parent] = heap[smallest]
                    places[heap[parent].agent] = parent
                    parent = smallest
                }
                heap[parent] = entry
                places[entry.agent] = parent
            }
        }
    }
}
