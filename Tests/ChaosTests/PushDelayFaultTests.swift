import Chaos
import Scenario
import XCTest

final class PushDelayFaultTests: XCTestCase {
    func testEveryPushIsDelayedByTheLegacySaltThreeSample() {
        let d = Distribution.uniform(100_000_000, 2_000_000_000)
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.delay = d })
        for seq in UInt64(1)...50 {
            let decision = ChaosFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.fate, .deliver)
            XCTAssertEqual(decision.delayNanos, ChaosFixtures.legacySample(d, 0, ChaosFixtures.subject, seq, 3))
            XCTAssertEqual(decision.notes.map(\.kind), ["push.delayed"])
        }
    }

    func testDelaysOfOverlappingWindowsAddUp() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.delay = .constant(1_000) })
        let decision = ChaosFixtures.decide([w, w], seq: 1)
        XCTAssertEqual(decision.delayNanos, 2_000)
        XCTAssertEqual(decision.notes.count, 2)
    }

    func testARampScalesTheDelayByTheStrengthAtTheCallsPlannedTime() {
        var w = ChaosFixtures.window(push: ChaosFixtures.push { $0.delay = .constant(1_000_000) })
        w.rampNanos = 4_000
        // planned at 1 µs into a 4 µs ramp: a quarter of the delay.
        XCTAssertEqual(ChaosFixtures.decide([w], seq: 1).delayNanos, 250_000)
    }
}
