/// A hashed timing wheel: one per worker, so thousands of devices' think times cost one DispatchSourceTimer
/// (one timer per device does not scale: 10,000 of them cost 1.2 cores on this machine).
///
/// Time is cut into ticks; an entry sits in slot `tick % slotCount` and fires when the wheel is advanced past
/// its deadline. Entries further away than one revolution wait in their slot for later rounds. A bitmap of
/// occupied slots gives the next occupied tick in a few word scans, and the earliest exact deadline in it is the
/// instant worth waking up for: waking at the tick's end made every timer up to a tick late (0–250 µs, half of a
/// call's scheduler lag at low rates), which callstorm really was, not only its measurement (issue 33).
/// Not thread safe: owned by one worker queue.
///
/// The entries live in one pool (reused through a free list), each slot a list threaded through
/// it (`lists`, `Entry.next`): an array per slot allocated its buffer at the slot's first entry, and the cursor
/// reaches every slot within one revolution (4 s at the defaults), so a run of a few seconds allocated thousands of
/// them, and a due entry was copied through a list of fired entries on its way out (issue 33).
public struct TimerWheel<Payload> {
    public let tickNanos: UInt64
    /// First and last entry of each slot's list, -1 when empty; entries in scheduling order. One array of pairs,
    /// not two arrays: each array written is a uniqueness check, and a schedule wrote six (66 a SIP call).
    private var lists: [SlotList]
    /// The pool: each entry's tick, next entry in its slot's list (or free list) and payload (nil while free), in
    /// one element so a schedule writes the entry once and a due entry's payload is moved out, not copied.
    private var pool: [Entry] = []
    private var free: Int32 = -1
    /// The serial the next entry scheduled gets (a free entry has 0), so a ticket names one scheduling only.
    private var nextSerial: UInt64 = 1
    private var occupied: [UInt64]
    /// The last tick fully processed.
    private var cursor: UInt64
    public private(set) var count = 0

    private struct SlotList {
        var head: Int32 = -1
        var tail: Int32 = -1
    }

    private struct Entry {
        var tick: UInt64
        /// The exact deadline asked for (the tick is its round-up, or the next tick for one already past).
        var deadline: UInt64 = 0
        var next: Int32
        var payload: Payload?
        var serial: UInt64 = 0
    }

    /// What `schedule` hands back, for `cancel`: the entry and the serial it was scheduled under (a fired or
    /// cancelled entry may be reused by a later schedule, under another serial).
    public struct Ticket: Sendable, Equatable {
        let entry: Int32
        let serial: UInt64
    }

    /// - Parameters:
    ///   - tickNanos: resolution; an entry fires at most one tick after its deadline.
    ///   - slotCount: a power of two; one revolution is `tickNanos * slotCount`.
    ///   - startNanos: the wheel's notion of "now" when created.
    public init(tickNanos: UInt64 = 250_000, slotCount: Int = 16_384, startNanos: UInt64) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slotCount must be a power of two")
        self.tickNanos = tickNanos
        self.lists = Array(repeating: SlotList(), count: slotCount)
        self.occupied = Array(repeating: 0, count: (slotCount + 63) / 64)
        self.cursor = startNanos / tickNanos
    }

    /// Schedules `payload` to fire at `deadlineNanos` (or at the next advance, if that is already past). The
    /// payload is consumed: moved into the pool, where a borrowed one was copied (retained) and the caller's
    /// destroyed (issue 33).
    @discardableResult
    public mutating func schedule(_ payload: consuming Payload, at deadlineNanos: UInt64) -> Ticket {
        // Round up so nothing fires before its deadline.
        let tick = Swift.max((deadlineNanos + tickNanos - 1) / tickNanos, cursor + 1)
        let slot = Int(tick & UInt64(lists.count - 1))
        let entry: Int32
        let serial = nextSerial
        nextSerial += 1
        if free >= 0 {
            entry = free
            free = pool[Int(entry)].next
            pool[Int(entry)] = Entry(tick: tick, deadline: deadlineNanos, next: -1, payload: payload, serial: serial)
        } else {
            entry = Int32(pool.count)
            pool.append(Entry(tick: tick, deadline: deadlineNanos, next: -1, payload: payload, serial: serial))
        }
        let tail = lists[slot].tail
        if tail >= 0 {
            pool[Int(tail)].next = entry
            lists[slot].tail = entry
        } else {
            lists[slot] = SlotList(head: entry, tail: entry)
        }
        occupied[slot >> 6] |= 1 << UInt64(slot & 63)
        count += 1
        return Ticket(entry: entry, serial: serial)
    }

    /// Takes the entry `ticket` names out before it fires; false when it fired or was cancelled already. Its slot's
    /// list is walked from the head to unlink it (a slot holds a few entries). A timer that would only have found
    /// its work done (a SIP action's timeout after its answer) then costs no take, no dispatch and no wake at its
    /// deadline, and its entry is reused at once (issue 33).
    @discardableResult
    public mutating func cancel(_ ticket: Ticket) -> Bool {
        let e = Int(ticket.entry)
        guard e < pool.count, pool[e].serial == ticket.serial else { return false }
        let slot = Int(pool[e].tick & UInt64(lists.count - 1))
        var list = lists[slot]
        var previous: Int32 = -1
        var entry = list.head
        while entry >= 0, entry != ticket.entry {
            previous = entry
            entry = pool[Int(entry)].next
        }
        guard entry >= 0 else { return false }
        let following = pool[e].next
        if previous >= 0 { pool[Int(previous)].next = following } else { list.head = following }
        if list.tail == entry { list.tail = previous }
        lists[slot] = list
        if list.head < 0 { occupied[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
        pool[e] = Entry(tick: 0, next: free, payload: nil)
        free = entry
        count -= 1
        return true
    }

    /// Moves the wheel to `nowNanos`, appending every payload whose deadline has passed to `due`, tick by tick
    /// (within a tick in scheduling order): every tick that ended by `nowNanos`, then, from the tick `nowNanos`
    /// falls in, the entries whose exact deadline has come (the rest of that tick fires at a later advance).
    public mutating func advance(to nowNanos: UInt64, into due: inout [Payload]) {
        let nowTick = nowNanos / tickNanos
        defer { takePartial(nowTick + 1, now: nowNanos, into: &due) }
        guard nowTick > cursor else { return }
        let span = nowTick - cursor
        if span >= UInt64(lists.count) {
            // Slept through a whole revolution: sweep every slot once, then order what fired (stably by tick).
            var fired: [Payload] = []
            var kept: [UInt64]? = []
            for slot in lists.indices where lists[slot].head >= 0 {
                take(slot, upTo: nowTick, now: 0, into: &fired, ticks: &kept)
            }
            let ticks = kept ?? []
            let order = fired.indices.sorted { ticks[$0] != ticks[$1] ? ticks[$0] < ticks[$1] : $0 < $1 }
            due.reserveCapacity(due.count + fired.count)
            for i in order { due.append(fired[i]) }
        } else {
            var noTicks: [UInt64]?
            var tick = cursor + 1
            while tick <= nowTick {
                let slot = Int(tick & UInt64(lists.count - 1))
                // Skip to the next occupied slot a bitmap word at a time (a 50 ms sleep is 200 ticks).
                let word = occupied[slot >> 6] >> UInt64(slot & 63)
                if word == 0 {
                    // To the end of the word, or of the wheel when it has fewer than 64 slots (then wrap).
                    tick += UInt64(Swift.min(64 - (slot & 63), lists.count - slot))
                    continue
                }
                let hop = UInt64(word.trailingZeroBitCount)
                if hop > 0 {
                    tick += hop
                    continue
                }
                take(slot, upTo: nowTick, now: 0, into: &due, ticks: &noTicks)
                tick += 1
            }
        }
        cursor = nowTick
    }

    /// The entries of `tick` (the one in progress) whose exact deadline is `now` or before.
    private mutating func takePartial(_ tick: UInt64, now: UInt64, into due: inout [Payload]) {
        let slot = Int(tick & UInt64(lists.count - 1))
        guard occupied[slot >> 6] & (1 << UInt64(slot & 63)) != 0 else { return }
        var noTicks: [UInt64]?
        take(slot, upTo: tick - 1, partial: tick, now: now, into: &due, ticks: &noTicks)
    }

    /// Unlinks the slot's entries due by `nowTick` (and those of tick `partial` whose deadline is `now` or
    /// before), in list order, appending each one's payload to `due` (moved out of the pool, not copied) and its
    /// tick to `ticks` when asked, and frees them; later rounds' entries stay in order.
    private mutating func take(_ slot: Int, upTo nowTick: UInt64, partial: UInt64 = .max, now: UInt64,
                               into due: inout [Payload], ticks: inout [UInt64]?) {
        var list = lists[slot]
        let before = list
        var previous: Int32 = -1
        var entry = list.head
        while entry >= 0 {
            let e = Int(entry)
            let following = pool[e].next
            let tick = pool[e].tick
            if tick <= nowTick || (tick == partial && pool[e].deadline <= now) {
                // The entry swapped for a free one in one write (its payload moved out with it).
                var taken = Entry(tick: 0, next: free, payload: nil)
                swap(&taken, &pool[e])
                if let payload = taken.payload.take() { due.append(payload) }
                ticks?.append(tick)
                if previous >= 0 { pool[Int(previous)].next = following } else { list.head = following }
                if list.tail == entry { list.tail = previous }
                free = entry
                count -= 1
            } else {
                previous = entry
            }
            entry = following
        }
        if list.head != before.head || list.tail != before.tail { lists[slot] = list }
        if list.head < 0 { occupied[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
    }

    /// The payloads waiting, in no set order: for tests, which check what a worker left on its wheel.
    func waiting() -> [Payload] { pool.compactMap(\.payload) }

    /// The earliest instant at which some entry may be due: the earliest exact deadline of the next occupied
    /// tick's entries (its slot's list, a few entries), or the tick's end when they all belong to a later round
    /// (waking then costs one empty advance). Nil when the wheel is empty.
    public func nextWakeNanos() -> UInt64? {
        guard count > 0 else { return nil }
        let n = lists.count
        let start = Int((cursor + 1) & UInt64(n - 1))
        var offset = 0
        while offset < n {
            let slot = (start + offset) & (n - 1)
            let word = occupied[slot >> 6] >> UInt64(slot & 63)
            if word != 0 {
                let hop = word.trailingZeroBitCount
                let distance = offset + hop
                if distance < n { return earliestDeadline(inTick: cursor + 1 + UInt64(distance)) }
                break
            }
            offset += 64 - (slot & 63)
        }
        return (cursor + 1) * tickNanos
    }

    private func earliestDeadline(inTick tick: UInt64) -> UInt64 {
        var earliest = tick * tickNanos
        var entry = lists[Int(tick & UInt64(lists.count - 1))].head
        while entry >= 0 {
            let e = Int(entry)
            if pool[e].tick == tick, pool[e].deadline < earliest { earliest = pool[e].deadline }
            entry = pool[e].next
        }
        return earliest
    }
}
