/// A binary min-heap of values by priority: the one timer queue of loops that wake for their earliest deadline
/// (the fault proxy's connections, the media streams' send deadlines), kept in one place so its sifting is written and
/// tested once. (The SIP pool's agents left it for an indexed heap, `AgentDeadlines`, that moves an entry in place.)
///
/// Entries are never removed from inside: a user whose deadline moves pushes the new one and skips the stale
/// entry when it comes out (lazy cancellation), which keeps every operation O(log n) with no index to maintain.
/// Entries of equal priority come out together, in no promised order among themselves.
///
/// A value type with no locks: owned by the one thread or loop that schedules on it. Inlinable so each user gets a
/// copy specialized for its types (this is on the hot paths of event loops).
public struct MinHeap<Priority: Comparable, Value> {
    public typealias Entry = (priority: Priority, value: Value)

    @usableFromInline var entries: [Entry] = []

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { entries.isEmpty }
    @inlinable public var count: Int { entries.count }
    /// The entry of lowest priority (the earliest deadline); nil when empty.
    @inlinable public var top: Entry? { entries.first }

    /// Adds `value` at `priority`; an entry already there for the same value stays (see lazy cancellation above).
    @inlinable public mutating func push(_ value: Value, at priority: Priority) {
        entries.append((priority, value))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].priority < entries[parent].priority else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the entry of lowest priority; nil when empty.
    @inlinable @discardableResult public mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].priority < entries[smallest].priority { smallest = left }
            if right < entries.count, entries[right].priority < entries[smallest].priority { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    /// Removes and returns the lowest entry if its priority is at most `limit` (a deadline that has come); nil when
    /// nothing is due. `while let entry = heap.popDue(now)` is a timer loop's whole walk.
    @inlinable public mutating func popDue(_ limit: Priority) -> Entry? {
        guard let first = entries.first, first.priority <= limit else { return nil }
        return pop()
    }
}
