import CLinux
import Determinism
import EventPolling

/// The pool's time: the timer that advances the agents that are due, and when each is next due.
struct PoolTiming {
    /// The grid the timer's wake-ups fall on (monotonic nanoseconds): the old periodic tick's interval.
    static let granularity: UInt64 = 10_000_000
    var ticker: EventTimer?
    var deadlines = AgentDeadlines()
    /// The instant (the pool's clock) the ticker is armed for; `.max`: not armed.
    var armedFor = UInt64.max
    /// The clock's `wakeOnMove` token (a test's clock), nil for one that only flows.
    var waking: Int?
    /// The agents a tick found due, kept to reuse its storage.
    private var dueList: [Int] = []

    /// Arms the ticker for the earliest agent deadline, or `held` if earlier, when that is earlier than its arming:
    /// a delay from the clock's time (a test may move it), to the first instant of the 10 ms grid at or after it. A
    /// timer fires as late as on the old periodic tick, and deadlines close together share one wake-up.
    mutating func arm(_ held: UInt64, clock: any Clock) {
        let next = min(deadlines.nextDue(), held)
        guard next < armedFor else { return }
        armedFor = next
        let now = clock.nowNanos(), grid = Self.granularity
        let at = clinux_monotonic_ns() + (next > now ? next - now : 0)
        ticker?.arm(atMonotonicNanos: (at + grid - 1) / grid * grid)
    }

    mutating func takeDueList() -> [Int] {
        var list: [Int] = []
        swap(&list, &dueList)
        return list
    }

    mutating func putBack(_ list: [Int]) {
        dueList = list
        dueList.removeAll(keepingCapacity: true)
    }
}

/// What a pool counts beyond its live agents' books.
struct PoolBooks {
    /// Agents opened so far: the last one's id.
    var opened = 0
    /// The books of agents already closed; their message tallies added up by their lists (`MessageTally.add`)
    /// and folded into the total only when it is read.
    var closed = SIPCounters()
    var closedTally = MessageTally()
    /// Datagrams or stream writes the kernel refused.
    var sendErrors = 0
    /// Sleeping devices' agents, closed and kept for their next wake (`park`, `reopen`), by the id they were closed
    /// under.
    var parked = SlotTable<SIPUserAgent>()

    mutating func addClosed(_ agent: SIPUserAgent) {
        agent.addCounters(to: &closed, tally: &closedTally)
    }
}
