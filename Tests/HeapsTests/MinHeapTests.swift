import Determinism
import Heaps
import XCTest

/// The shared min-heap: lowest priority first under any order of pushes and pops, ties all out before anything
/// later, and the pattern its users build lazy cancellation on (a value pushed again at a new priority keeps its
/// old entry, which the user skips).
final class MinHeapTests: XCTestCase {
    private func drain(_ heap: inout MinHeap<UInt64, Int>) -> [UInt64] {
        var out: [UInt64] = []
        while let entry = heap.pop() { out.append(entry.priority) }
        return out
    }

    func testEntriesComeOutLowestPriorityFirstWithTheirValues() {
        var heap = MinHeap<UInt64, Int>()
        XCTAssertTrue(heap.isEmpty)
        XCTAssertNil(heap.pop())
        for (value, priority) in [(1, 50), (2, 10), (3, 40), (4, 20), (5, 30)] { heap.push(value, at: UInt64(priority)) }
        XCTAssertEqual(heap.count, 5)
        XCTAssertEqual(heap.top?.value, 2)
        var values: [Int] = []
        while let entry = heap.pop() { values.append(entry.value) }
        XCTAssertEqual(values, [2, 4, 5, 3, 1])
        XCTAssertTrue(heap.isEmpty)
    }

    func testPopsInterleavedWithPushesMatchASortedReferenceForSeededRandomInput() {
        var random = SeededRandom(seed: 26)
        var heap = MinHeap<UInt64, Int>()
        var reference: [UInt64] = []
        for step in 0..<2_000 {
            // Mostly pushes, with priorities drawn from a small range so many are equal.
            if random.next() % 3 != 0 || reference.isEmpty {
                let priority = random.next() % 200
                heap.push(step, at: priority)
                reference.insert(priority, at: reference.firstIndex { $0 > priority } ?? reference.count)
            } else {
                XCTAssertEqual(heap.pop()?.priority, reference.removeFirst(), "at step \(step)")
            }
            XCTAssertEqual(heap.top?.priority, reference.first)
        }
        XCTAssertEqual(drain(&heap), reference)
    }

    func testTiedEntriesAllComeOutBeforeAnythingLaterAndNoneIsLost() {
        var heap = MinHeap<UInt64, Int>()
        heap.push(100, at: 7)
        for value in 0..<6 { heap.push(value, at: 5) }
        heap.push(101, at: 3)
        XCTAssertEqual(heap.pop()?.value, 101)
        var tied: [Int] = []
        for _ in 0..<6 {
            let entry = heap.pop()
            XCTAssertEqual(entry?.priority, 5)
            if let entry { tied.append(entry.value) }
        }
        XCTAssertEqual(tied.sorted(), Array(0..<6))
        XCTAssertEqual(heap.pop()?.value, 100)
    }

    func testPopDueTakesOnlyWhatIsDueAndLeavesTheRest() {
        var heap = MinHeap<UInt64, Int>()
        heap.push(1, at: 30)
        heap.push(2, at: 10)
        heap.push(3, at: 20)
        XCTAssertNil(heap.popDue(9))
        XCTAssertEqual(heap.count, 3, "nothing due, nothing taken")
        var due: [Int] = []
        while let entry = heap.popDue(20) { due.append(entry.value) }
        XCTAssertEqual(due, [2, 3], "a deadline equal to now is due")
        XCTAssertEqual(heap.top?.value, 1)
        XCTAssertNil(MinHeap<UInt64, Int>().top)
    }

    func testAValuePushedAgainKeepsItsOldEntryForTheUserToSkip() {
        // Lazy cancellation as the fault proxy and the SIP pool use it: each keeps the live deadline per value and
        // skips entries that disagree with it.
        var heap = MinHeap<UInt64, Int>()
        var live: [Int: UInt64] = [:]
        func schedule(_ value: Int, at priority: UInt64) {
            live[value] = priority
            heap.push(value, at: priority)
        }
        schedule(1, at: 10)
        schedule(2, at: 15)
        schedule(1, at: 40)  // moved later: the entry at 10 is stale
        schedule(2, at: 5)  // moved earlier: the entry at 15 is stale
        schedule(3, at: 20)
        live[3] = nil  // cancelled
        XCTAssertEqual(heap.count, 5, "no entry is removed from inside")
        var fired: [(Int, UInt64)] = []
        while let (at, value) = heap.popDue(100) {
            guard live[value] == at else { continue }
            live[value] = nil
            fired.append((value, at))
        }
        XCTAssertEqual(fired.map(\.0), [2, 1])
        XCTAssertEqual(fired.map(\.1), [5, 40])
        XCTAssertTrue(heap.isEmpty)
    }
}
