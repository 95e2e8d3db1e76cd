/// The one-shot timers of one `EventThread`: a deadline (CLOCK_MONOTONIC nanoseconds) and an action per slot. The
/// thread waits until the earliest deadline (its epoll wait carries the timeout) and then runs every action whose
/// deadline has come, so a timer costs no system call to arm, disarm or fire (a timerfd cost a `timerfd_settime`
/// per arm and a `read` per expiry: ~12 system calls of a SIP call's ~55, issue 33).
///
/// A thread holds a handful (its Driver loop's wheel, its HTTP client's, its SIP pool's ticker, its media sender's),
/// so the earliest deadline is a scan, not a heap. Slots are reused after `remove`.
struct EventTimerTable {
    /// Disarmed.
    static let never = UInt64.max

    private var deadlines: [UInt64] = []
    private var actions: [(() -> Void)?] = []
    private var freeSlots: [Int] = []
    /// Slots armed now: the scan is skipped (and the clock not read) while none is.
    private(set) var armedCount = 0

    /// A disarmed timer that runs `action` when it fires; its slot.
    mutating func add(_ action: @escaping () -> Void) -> Int {
        if let slot = freeSlots.popLast() {
            actions[slot] = action
            return slot
        }
        deadlines.append(Self.never)
        actions.append(action)
        return deadlines.count - 1
    }

    /// Drops the timer in `slot`: it never fires again, and its action is released.
    mutating func remove(_ slot: Int) {
        disarm(slot)
        actions[slot] = nil
        freeSlots.append(slot)
    }

    /// Fires once at `deadline` (a deadline already passed fires on the thread's next turn); replaces any earlier
    /// arming.
    mutating func arm(_ slot: Int, at deadline: UInt64) {
        let at = min(deadline, Self.never - 1)
        if deadlines[slot] == Self.never { armedCount += 1 }
        deadlines[slot] = at
    }

    mutating func disarm(_ slot: Int) {
        if deadlines[slot] != Self.never { armedCount -= 1 }
        deadlines[slot] = Self.never
    }

    /// The earliest deadline armed, `never` when none is. A mutating getter, as `collectDue` is mutating: the
    /// thread keeps the table in a stored property of its class, and a non-mutating read there copied the table
    /// (three arrays retained and released, each turn; issue 33).
    var earliest: UInt64 {
        mutating get {
            guard armedCount > 0 else { return Self.never }
            var soonest = Self.never
            for deadline in deadlines where deadline < soonest { soonest = deadline }
            return soonest
        }
    }

    /// Puts the slots due at `now` into `due` (emptied first), earliest deadline first: the order they fire in.
    /// Mutating only so that the thread reaches its table in place (see `earliest`); nothing changes.
    mutating func collectDue(now: UInt64, into due: inout [Int]) {
        due.removeAll(keepingCapacity: true)
        guard armedCount > 0 else { return }
        for slot in deadlines.indices where deadlines[slot] <= now { due.append(slot) }
        if due.count > 1 { due.sort { deadlines[$0] < deadlines[$1] } }
    }

    /// The action of `slot` when its deadline is at or before `now`, disarmed first (so the action may arm it
    /// again); nil otherwise (an earlier action of the same turn disarmed it, or armed it later). The caller runs
    /// the action after this returns: an action may arm, disarm, add and remove timers, which would overlap an
    /// access still open here.
    mutating func takeIfDue(_ slot: Int, now: UInt64) -> (() -> Void)? {
        guard deadlines[slot] <= now, let action = actions[slot] else { return nil }
        disarm(slot)
        return action
    }
}
