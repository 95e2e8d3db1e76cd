/// A hashed timing wheel: one per worker, so thousands of devices' think times cost one DispatchSourceTimer
/// (one timer per device does not scale: 10,000 of them cost 1.2 cores on this machine).
///
/// Time is cut into ticks; an entry sits in slot `tick % slotCount` and fires when the wheel is advanced past
/// its deadline. Entries further away than one revolution wait in their slot for later rounds. A bitmap of
/// occupied slots gives the next instant worth waking up for in a few word scans.
/// Not thread safe: owned by one worker queue.
public struct TimerWheel<Payload> {
    private struct Entry {
        let tick: UInt64
        let payload: Payload
    }

    public let tickNanos: UInt64
    private var slots: [[Entry]]
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
        self.slots = Array(repeating: [], count: slotCount)
        self.occupied = Array(repeating: 0, count: (slotCount + 63) / 64)
        self.cursor = startNanos / tickNanos
    }

    /// Schedules `payload` to fire at `deadlineNanos` (or at the next advance, if that is already past).
    public mutating func schedule(_ payload: Payload, at deadlineNanos: UInt64) {
        // Round up so nothing fires before its deadline.
        let tick = Swift.max((deadlineNanos + tickNanos - 1) / tickNanos, cursor + 1)
        let slot = Int(tick & UInt64(slots.count - 1))
        slots[slot].append(Entry(tick: tick, payload: payload))
        occupied[slot >> 6] |= 1 << UInt64(slot & 63)
        count += 1
    }

    /// Moves the wheel to `nowNanos`, appending every payload whose deadline has passed to `due`,
    /// in deadline order (ties in scheduling order).
    public mutating func advance(to nowNanos: UInt64, into due: inout [Payload]) {
        let nowTick = nowNanos / tickNanos
        guard nowTick > cursor else { return }
        let span = nowTick - cursor
        if span >= UInt64(slots.count) {
            // Slept through a whole revolution: sweep every slot once, then order what fired.
            var fired: [Entry] = []
            for slot in slots.indices where !slots[slot].isEmpty { take(slot, upTo: nowTick, into: &fired) }
            fired.sort { $0.tick < $1.tick }
            Self.appendPayloads(of: fired, to: &due)
        } else {
            var fired: [Entry] = []
            var tick = cursor + 1
            while tick <= nowTick {
                let slot = Int(tick & UInt64(slots.count - 1))
                // Skip to the next occupied slot a bitmap word at a time (a 50 ms sleep is 200 ticks).
                let word = occupied[slot >> 6] >> UInt64(slot & 63)
                if word == 0 {
                    // To the end of the word, or of the wheel when it has fewer than 64 slots (then wrap).
                    tick += UInt64(Swift.min(64 - (slot & 63), slots.count - slot))
                    continue
                }
                let hop = UInt64(word.trailingZeroBitCount)
                if hop > 0 {
                    tick += hop
                    continue
                }
                take(slot, upTo: nowTick, into: &fired)
                Self.appendPayloads(of: fired, to: &due)
                fired.removeAll(keepingCapacity: true)
                tick += 1
            }
        }
        cursor = nowTick
    }

    /// A plain loop: `fired.lazy.map(\.payload)` instantiated its key path (`swift_getKeyPath`) at every advance
    /// in this generic type, ~8,000 instructions a time, ~0.17 M per SIP call at 20 calls/s (docs/SIP.md).
    private static func appendPayloads(of fired: [Entry], to due: inout [Payload]) {
        due.reserveCapacity(due.count + fired.count)
        for entry in fired { due.append(entry.payload) }
    }

    private mutating func take(_ slot: Int, upTo nowTick: UInt64, into fired: inout [Entry]) {
        // Most slots hold only this round's entries: move them all and keep the slot's buffer for the next round.
        if slots[slot].allSatisfy({ $0.tick <= nowTick }) {
            fired.append(contentsOf: slots[slot])
            count -= slots[slot].count
            slots[slot].removeAll(keepingCapacity: true)
            occupied[slot >> 6] &= ~(1 << UInt64(slot & 63))
            return
        }
        var kept: [Entry] = []
        for entry in slots[slot] {
            if entry.tick <= nowTick { fired.append(entry) } else { kept.append(entry) }
        }
        count -= slots[slot].count - kept.count
        slots[slot] = kept
        if kept.isEmpty { occupied[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
    }

    /// The earliest instant at which some entry may be due: the start of the next occupied tick. The entries
    /// there may belong to a later round; waking then costs one empty advance. Nil when the wheel is empty.
    public func nextWakeNanos() -> UInt64? {
        guard count > 0 else { return nil }
        let n = slots.count
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
