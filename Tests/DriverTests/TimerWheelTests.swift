@testable import Driver
import XCTest

final class TimerWheelTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func drain(_ wheel: inout TimerWheel<Int>, to now: UInt64) -> [Int] {
        var due: [Int] = []
        wheel.advance(to: now, into: &due)
        return due
    }

    func testNothingFiresBeforeItsDeadline() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 64, startNanos: 0)
        wheel.schedule(1, at: 10 * ms + 1)
        XCTAssertEqual(drain(&wheel, to: 10 * ms), [])
        XCTAssertEqual(drain(&wheel, to: 11 * ms), [1])
        XCTAssertEqual(wheel.count, 0)
    }

    func testFiresInDeadlineOrder() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 64, startNanos: 0)
        wheel.schedule(3, at: 30 * ms)
        wheel.schedule(1, at: 10 * ms)
        wheel.schedule(2, at: 20 * ms)
        XCTAssertEqual(drain(&wheel, to: 40 * ms), [1, 2, 3])
    }

    func testEntriesBeyondOneRevolutionWaitForTheirRound() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        wheel.schedule(7, at: 5 * ms + 16 * ms * 3)  // same slot as 5 ms, three rounds later
        wheel.schedule(5, at: 5 * ms)
        XCTAssertEqual(drain(&wheel, to: 6 * ms), [5])
        XCTAssertEqual(drain(&wheel, to: 40 * ms), [])
        XCTAssertEqual(drain(&wheel, to: 53 * ms), [7])
    }

    func testLongSleepSweepsEverythingDueInOrder() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        for i in (0..<40).reversed() { wheel.schedule(i, at: UInt64(i + 1) * 3 * ms) }
        XCTAssertEqual(drain(&wheel, to: 1000 * ms), Array(0..<40))
    }

    func testLongSleepKeepsTiesInSchedulingOrder() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        // Two deadlines, scheduled interleaved; the later one (slot 4) is swept before the earlier (slot 12).
        for i in 0..<10 { wheel.schedule(i % 2 == 0 ? i : 100 + i, at: (i % 2 == 0 ? 20 : 12) * ms) }
        XCTAssertEqual(drain(&wheel, to: 1000 * ms), [101, 103, 105, 107, 109, 0, 2, 4, 6, 8])
    }

    /// The wheel hands a fired payload over and keeps no reference to it: the pool entry is reused, the payload is
    /// gone once the caller drops it.
    func testFiredPayloadIsHandedOverNotKept() {
        final class Token {}
        var wheel = TimerWheel<Token>(tickNanos: ms, slotCount: 16, startNanos: 0)
        weak var first: Token?
        do {
            let token = Token()
            first = token
            wheel.schedule(token, at: 2 * ms)
        }
        var due: [Token] = []
        wheel.advance(to: 3 * ms, into: &due)
        XCTAssertEqual(due.count, 1)
        due.removeAll()
        XCTAssertNil(first, "the wheel still held the fired payload")
        wheel.schedule(Token(), at: 5 * ms)
        wheel.advance(to: 6 * ms, into: &due)
        XCTAssertEqual(due.count, 1)
        XCTAssertEqual(wheel.count, 0)
    }

    /// A cancelled entry never fires, whatever its place in its slot's list, and the others keep their order.
    func testCancelledEntriesNeverFireAndTheRestKeepTheirOrder() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        // Five in one slot (two rounds apart for the last two), then the head, a middle and the tail cancelled.
        let tickets = [1, 2, 3, 4, 5].map { wheel.schedule($0, at: ($0 < 4 ? 5 : 21) * ms) }
        XCTAssertTrue(wheel.cancel(tickets[0]))
        XCTAssertTrue(wheel.cancel(tickets[2]))
        XCTAssertTrue(wheel.cancel(tickets[4]))
        XCTAssertEqual(wheel.count, 2)
        wheel.schedule(6, at: 5 * ms)  // reuses a freed entry, after the list's new tail
        XCTAssertEqual(drain(&wheel, to: 6 * ms), [2, 6])
        XCTAssertEqual(drain(&wheel, to: 30 * ms), [4])
        XCTAssertNil(wheel.nextWakeNanos())
    }

    /// A ticket names one scheduling: once its entry fired (or was cancelled) and was reused, it cancels nothing.
    func testStaleTicketCancelsNothing() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        let fired = wheel.schedule(1, at: 2 * ms)
        XCTAssertEqual(drain(&wheel, to: 3 * ms), [1])
        XCTAssertFalse(wheel.cancel(fired))
        let cancelled = wheel.schedule(2, at: 5 * ms)  // the same entry, reused
        XCTAssertTrue(wheel.cancel(cancelled))
        XCTAssertFalse(wheel.cancel(cancelled))
        wheel.schedule(3, at: 5 * ms)  // the same entry again
        XCTAssertFalse(wheel.cancel(fired))
        XCTAssertFalse(wheel.cancel(cancelled))
        XCTAssertEqual(drain(&wheel, to: 6 * ms), [3])
    }

    func testPastDeadlineFiresOnNextAdvance() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 100 * ms)
        wheel.schedule(1, at: 50 * ms)
        XCTAssertEqual(drain(&wheel, to: 101 * ms), [1])
    }

    func testNextWakePointsAtFirstOccupiedTick() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 256, startNanos: 0)
        XCTAssertNil(wheel.nextWakeNanos())
        wheel.schedule(1, at: 200 * ms)
        wheel.schedule(2, at: 70 * ms)
        XCTAssertEqual(wheel.nextWakeNanos(), 70 * ms)
        _ = drain(&wheel, to: 70 * ms)
        XCTAssertEqual(wheel.nextWakeNanos(), 200 * ms)
    }

    func testNextWakeNeverLaterThanDeadlineAcrossWrap() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 64, startNanos: 60 * ms)
        wheel.schedule(1, at: 66 * ms)  // slot 2 after wrapping
        XCTAssertEqual(wheel.nextWakeNanos(), 66 * ms)
    }

    /// A deadline inside a tick fires as soon as an advance reaches it, not at the tick's end, and the tick's
    /// later entries wait for theirs.
    func testFiresAtItsExactDeadlineInsideATick() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 64, startNanos: 0)
        wheel.schedule(1, at: 10 * ms + 200_000)
        wheel.schedule(2, at: 10 * ms + 700_000)
        XCTAssertEqual(drain(&wheel, to: 10 * ms + 199_999), [])
        XCTAssertEqual(drain(&wheel, to: 10 * ms + 200_000), [1])
        XCTAssertEqual(drain(&wheel, to: 10 * ms + 699_999), [])
        XCTAssertEqual(drain(&wheel, to: 10 * ms + 700_000), [2])
        XCTAssertEqual(wheel.count, 0)
    }

    /// The wake-up instant is the earliest exact deadline of the next occupied tick (the tick's end made every
    /// timer up to a tick late), and a tick holding only a later round's entries is woken for at its end.
    func testNextWakeIsTheEarliestExactDeadline() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 0)
        wheel.schedule(1, at: 5 * ms + 600_000)
        wheel.schedule(2, at: 5 * ms + 300_000)
        XCTAssertEqual(wheel.nextWakeNanos(), 5 * ms + 300_000)
        XCTAssertEqual(drain(&wheel, to: 5 * ms + 300_000), [2])
        XCTAssertEqual(wheel.nextWakeNanos(), 5 * ms + 600_000)
        XCTAssertEqual(drain(&wheel, to: 5 * ms + 600_000), [1])
        wheel.schedule(3, at: 6 * ms + 16 * ms + 500_000)  // slot 7, a round later
        XCTAssertEqual(wheel.nextWakeNanos(), 7 * ms)
    }

    /// One scheduled for an instant already past is due at once: the next advance fires it, before the tick it was
    /// put in has ended, and the wake-up instant is that past deadline.
    func testPastDeadlineIsDueAtOnce() {
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: 16, startNanos: 100 * ms + 400_000)
        wheel.schedule(1, at: 100 * ms + 100_000)
        XCTAssertEqual(wheel.nextWakeNanos(), 100 * ms + 100_000)
        XCTAssertEqual(drain(&wheel, to: 100 * ms + 400_001), [1])
    }

    func testRandomScheduleMatchesSortedReference() {
        // Fewer slots than a bitmap word, a few words, and the driver's own size: the advance skips empty words.
        for slotCount in [16, 128, 16_384] { checkRandomSchedule(slotCount: slotCount) }
    }

    private func checkRandomSchedule(slotCount: Int) {
        var rng = SystemRandomNumberGenerator()
        var wheel = TimerWheel<Int>(tickNanos: ms, slotCount: slotCount, startNanos: 0)
        var reference: [(UInt64, Int)] = []
        for i in 0..<2000 {
            let at = UInt64.random(in: 1...(2000 * ms), using: &rng)
            wheel.schedule(i, at: at)
            reference.append((at, i))
        }
        var fired: [Int] = []
        var now: UInt64 = 0
        while wheel.count > 0 {
            now += UInt64.random(in: 1...(50 * ms), using: &rng)
            var due: [Int] = []
            wheel.advance(to: now, into: &due)
            for id in due {
                let deadline = reference.first { $0.1 == id }!.0
                XCTAssertLessThanOrEqual(deadline, now, "fired early")
            }
            fired += due
            let firedSoFar = Set(fired)
            // Nothing due is left behind for a later advance (the tick in progress included).
            XCTAssertEqual(reference.filter { $0.0 <= now && !firedSoFar.contains($0.1) }.count, 0, "due but not fired")
        }
        XCTAssertEqual(Set(fired), Set(0..<2000))
    }
}
