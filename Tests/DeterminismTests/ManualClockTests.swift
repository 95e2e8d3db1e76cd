import Determinism
import Testing

struct ManualClockTests {
    @Test func startsAtOneSecondAndMovesOnlyWhenAdvanced() {
        let clock = ManualClock()
        #expect(clock.nowNanos() == 1_000_000_000)
        #expect(clock.nowNanos() == 1_000_000_000)
        clock.advance(by: 250)
        #expect(clock.nowNanos() == 1_000_000_250)
    }

    @Test func setPutsTheClockAtTheGivenInstant() {
        let clock = ManualClock(startNanos: 5)
        clock.set(42)
        #expect(clock.nowNanos() == 42)
    }

    @Test func monotonicClockNeverGoesBack() {
        let clock = MonotonicClock()
        let first = clock.nowNanos()
        #expect(clock.nowNanos() >= first)
    }
}
