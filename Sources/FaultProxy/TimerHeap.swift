/// A binary min-heap of (deadline, connection) pairs: the one timer structure of a loop thread, whose top
/// sets epoll_wait's timeout. Entries are not removed when plans change; stale ones are skipped on pop.
struct TimerHeap {
    private var items: [(at: UInt64, id: UInt64)] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var top: (at: UInt64, id: UInt64)? { items.first }

    mutating func push(at: UInt64, id: UInt64) {
        items.append((at, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].at < items[parent].at else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (at: UInt64, id: UInt64)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count && items[left].at < items[smallest].at { smallest = left }
            if right < items.count && items[right].at < items[smallest].at { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
