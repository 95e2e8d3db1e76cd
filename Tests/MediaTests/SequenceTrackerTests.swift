import Media
import XCTest

final class SequenceTrackerTests: XCTestCase {
    private func track(_ sequences: [UInt16]) -> (SequenceTracker, [SequenceTracker.Verdict]) {
        var tracker = SequenceTracker()
        let verdicts = sequences.map { tracker.note($0) }
        return (tracker, verdicts)
    }

    func testGapsAreLost() {
        // 100, 101, 103, 106: expected 100...106 = 7, received 4, lost 102, 104, 105 = 3.
        let (t, _) = track([100, 101, 103, 106])
        XCTAssertEqual(t.expected, 7)
        XCTAssertEqual(t.received, 4)
        XCTAssertEqual(t.lost, 3)
        XCTAssertEqual(t.extendedHighest, 106)
    }

    func testTheSequenceWrapsIntoTheNextCycle() {
        // 65534, 65535, 0, 1: one wrap, extended highest 65536 + 1, nothing lost.
        let (t, _) = track([65_534, 65_535, 0, 1])
        XCTAssertEqual(t.extendedHighest, 0x0001_0001)
        XCTAssertEqual(t.expected, 4)
        XCTAssertEqual(t.lost, 0)
        // 65533, 65535, 1: 65533...65537 expected (5), 65534 and 0 lost.
        let (gap, _) = track([65_533, 65_535, 1])
        XCTAssertEqual(gap.expected, 5)
        XCTAssertEqual(gap.lost, 2)
    }

    func testAReorderedPacketIsLateNotLost() {
        let (t, verdicts) = track([1, 2, 4, 3, 5])
        XCTAssertEqual(verdicts, [.inOrder, .inOrder, .inOrder, .late, .inOrder])
        XCTAssertEqual(t.late, 1)
        XCTAssertEqual(t.received, 5)
        XCTAssertEqual(t.lost, 0)
        // Reordered across the wrap: 65535, 1, 0.
        let (wrap, wrapVerdicts) = track([65_535, 1, 0])
        XCTAssertEqual(wrapVerdicts, [.inOrder, .inOrder, .late])
        XCTAssertEqual(wrap.lost, 0)
        XCTAssertEqual(wrap.expected, 3)
    }

    func testDuplicatesAreCountedApartAndDoNotHideLoss() {
        // 1, 2, 2, 3, 2, 5: duplicates 2; expected 5, received 4 (1, 2, 3, 5), lost 1 (4).
        let (t, verdicts) = track([1, 2, 2, 3, 2, 5])
        XCTAssertEqual(verdicts, [.inOrder, .inOrder, .duplicate, .inOrder, .duplicate, .inOrder])
        XCTAssertEqual(t.duplicates, 2)
        XCTAssertEqual(t.received, 4)
        XCTAssertEqual(t.lost, 1)
    }

    func testALatePacketFromBeforeTheFirstIsExpectedToo() {
        let (t, _) = track([5, 6, 4])
        XCTAssertEqual(t.expected, 3)
        XCTAssertEqual(t.lost, 0)
    }

    func testAJumpIsTakenOnlyWhenTheNextPacketFollowsIt() {
        // A stray 20000 between 11 and 12 is not counted; the stream goes on.
        let (stray, verdicts) = track([10, 11, 20_000, 12])
        XCTAssertEqual(verdicts, [.inOrder, .inOrder, .jumpPending, .inOrder])
        XCTAssertEqual(stray.received, 3)
        XCTAssertEqual(stray.lost, 0)
        // 20000 then 20001: the source restarted; both counted, the old books' expectation kept.
        let (restart, restartVerdicts) = track([10, 11, 20_000, 20_001, 20_003])
        XCTAssertEqual(restartVerdicts, [.inOrder, .inOrder, .jumpPending, .restarted, .inOrder])
        XCTAssertEqual(restart.restarts, 1)
        XCTAssertEqual(restart.received, 5)
        XCTAssertEqual(restart.expected, 2 + 4)
        XCTAssertEqual(restart.lost, 1)
        // A restart at 65535 confirmed by 0: the new books span the wrap (it broke them: expected went negative).
        let (wrapped, wrappedVerdicts) = track([30_000, 30_001, 65_535, 0, 1])
        XCTAssertEqual(wrappedVerdicts, [.inOrder, .inOrder, .jumpPending, .restarted, .inOrder])
        XCTAssertEqual(wrapped.expected, 2 + 3)
        XCTAssertEqual(wrapped.lost, 0)
    }

    func testTheIntervalFractionLostFollowsAppendixA3() {
        var t = SequenceTracker()
        for s: UInt16 in [0, 1, 2, 3, 5, 6, 7, 9] { _ = t.note(s) }
        // expected 10 (0...9), received 8: lost 2, fraction 2 × 256 / 10 = 51.
        let (fraction, mark) = t.interval(since: .init())
        XCTAssertEqual(fraction, 51)
        for s: UInt16 in [10, 11, 12, 13] { _ = t.note(s) }
        XCTAssertEqual(t.interval(since: mark).fractionLost, 0)
        // A duplicate-heavy interval never reports a negative fraction.
        XCTAssertEqual(SequenceTracker().interval(since: .init()).fractionLost, 0)
    }
}
