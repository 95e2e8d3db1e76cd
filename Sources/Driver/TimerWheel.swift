/// A hashed timing wheel: one per worker, so thousands of devices' think times cost one DispatchSourceTimer
/// (one timer per device does not scale: 10,000 of them cost 1.2 cores on this machine).
///
/// Time is cut into ticks; an entry sits in slot `tick % slotCount` and fires when the wheel is advanced past
/// its deadline. Entries further away than one revolution wait in their slot for later rounds. A bitmap of
/// occupied slots gives the next instant worth waking up for in a few word scans.
/// Not thread safe: owned by one worker queue.
///
/// The entries live in one pool (parallel arrays, reused through a free list), each slot a list threaded through
/// it (`heads`, `tails`, `next`): an array per slot allocated its buffer at the slot's first entry, and the cursor
/// reaches every slot within one revolution (4 s at the defaults), so a run of a few seconds allocated thousands of
/// them, and a due entry was copied through a list of fired entries on its way out (issue 33).
public struct TimerWheel<Payload> {
    public let tickNanos: UInt64
    /// First and last entry of each slot's list, -1 when empty; entries in scheduling order.
    private var heads: [Int32]
    private var tails: [Int32]
    /// The pool: each entry's tick, payload (nil while free) and next entry in its slot's list (or free list).
    private var ticks: [UInt64] = []
    private var payloads: [Payload?] = []
    private var next: [Int32] = []
    private var free: Int32 = -1
    private var occupied: [UInt64]
    /// The last tick fully processed.
    private var cursor: UInt64
    public private(set) var count = 0

    /// - Parameters:
    ///   - tickNanos: resolution; an entry fires at most one tick after its deadline.
    ///   - slotCount: a power of two; one revolution is `tickNanos * slotCount`.
    ///   - startNanos: the wheel's notion of "now" when created.
    public init(tickNanos: UInt64 = 250_000, slotCount: Int = 16_384, startNanos: UInt64) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slotCount must be a power of two")
        self.tickNanos = tickNanos
        self.heads = Array(repeating: -1, count: slotCount)
        self.tails = Array(repeating: -1, count: slotCount)
        self.occupied = Array(repeating: 0, count: (slotCount + 63) / 64)
        self.cursor = startNanos / tickNanos
    }

    /// Schedules `payload` to fire at `deadlineNanos` (or at the next advance, if that is already past).
    public mutating func schedule(_ payload: Payload, at deadlineNanos: UInt64) {
        // Round up so nothing fires before its deadline.
        let tick = Swift.max((deadlineNanos + tickNanos - 1) / tickNanos, cursor + 1)
        let slot = Int(tick & UInt64(heads.count - 1))
        let entry: Int32
        if free >= 0 {
            entry = free
            free = next[Int(entry)]
            ticks[Int(entry)] = tick
            payloads[Int(entry)] = payload
            next[Int(entry)] = -1
        } else {
            entry = Int32(ticks.count)
            ticks.append(tick)
            payloads.append(payload)
            next.append(-1)
        }
        if tails[slot] >= 0 { next[Int(tails[slot])] = entry } else { heads[slot] = entry }
        tails[slot] = entry
        occupied[slot >> 6] |= 1 << UInt64(slot & 63)
        count += 1
    }

    /// Moves the wheel to `nowNanos`, appending every payload whose deadline has passed to `due`,
    /// in deadline order (ties in scheduling order).
    public mutating func advance(to nowNanos: UInt64, into due: inout [Payload]) {
        let nowTick = nowNanos / tickNanos
        guard nowTick > cursor else { return }
        let span = nowTick - cursor
        if span >= UInt64(heads.count) {
            // Slept through a whole revolution: sweep every slot once, then order what fired.
            var fired: [(tick: UInt64, payload: Payload)] = []
            for slot in heads.indices where heads[slot] >= 0 {
                take(slot, upTo: nowTick) { fired.append(($0, $1)) }
            }
            fired.sort { $0.tick < $1.tick }
            due.reserveCapacity(due.count + fired.count)
            for entry in fired { due.append(entry.payload) }
        } else {
            var tick = cursor + 1
            while tick <= nowTick {
                let slot = Int(tick & UInt64(heads.count - 1))
                // Skip to the next occupied slot a bitmap word at a time (a 50 ms sleep is 200 ticks).
                let word = occupied[slot >> 6] >> UInt64(slot & 63)
                if word == 0 {
                    // To the end of the word, or of the wheel when it has fewer than 64 slots (then wrap).
                    tick += UInt64(Swift.min(64 - (slot & 63), heads.count - slot))
                    continue
                }
                let hop = UInt64(word.trailingZeroBitCount)
                if hop > 0 {
                    tick += hop
                    continue
                }
                take(slot, upTo: nowTick) { due.append($1) }
                tick += 1
            }
        }
        cursor = nowTick
    }

    /// Unlinks the slot's entries due by `nowTick`, in list order, handing each one's tick and payload to `fire`
    /// (moved out of the pool, not copied), and frees them; later rounds' entries stay in order.
    private mutating func take(_ slot: Int, upTo nowTick: UInt64, _ fire: (UInt64, Payload) -> Void) {
        var previous: Int32 = -1
        var entry = heads[slot]
        while entry >= 0 {
            let e = Int(entry)
            let following = next[e]
            if ticks[e] <= nowTick {
                var payload: Payload?
                swap(&payload, &payloads[e])
                fire(ticks[e], payload.unsafelyUnwrapped)
                if previous >= 0 { next[Int(previous)] = following } else { heads[slot] = following }
                if tails[slot] == entry { tails[slot] = previous }
                next[e] = free
                free = entry
                count -= 1
            } else {
                previous = entry
            }
            entry = following
        }
        if heads[slot] < 0 { occupied[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
    }

    /// The earliest instant at which some entry may be due: the start of the next occupied tick. The entries
    /// there may belong to a later round; waking then costs one empty advance. Nil when the wheel is empty.
    public func nextWakeNanos() -> UInt64? {
        guard count > 0 else { return nil }
        let n = heads.count
        let start = Int((cursor + 1) & UInt64(n - 1))
        var offset = 0
        while offset < n {
            let slot = (start + offset) & (n - 1)
            let word = occupied[slot >> 6] >> UInt64(slot & 63)
            if word != 0 {
                let hop = word.trailingZeroBitCount
                let distance = offset + hop
                if distance < n { return (cursor + 1 + UInt64(distance)) * tickNanos }
                break
            }
            offset += 64 - (slot & 63)
        }
        return (cursor + 1) * tickNanos
    }
}
