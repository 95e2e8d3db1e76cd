import Faults
import Quantities
import XCTest

final class PushDelayFaultTests: XCTestCase {
    func testEveryPushIsDelayedByTheLegacySaltThreeSample() {
        let d = Distribution.uniform(100_000_000, 2_000_000_000)
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.delay = d })
        for seq in UInt64(1)...50 {
            let decision = FaultFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.fate, .deliver)
            XCTAssertEqual(decision.delayNanos, FaultFixtures.legacySample(d, 0, FaultFixtures.subject, seq, 3))
            XCTAssertEqual(decision.notes.map(\.kind), ["push.delayed"])
        }
    }

    func testDelaysOfOverlappingWindowsAddUp() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.delay = .constant(1_000) })
        let decision = FaultFixtures.decide([w, w], seq: 1)
        XCTAssertEqual(decision.delayNanos, 2_000)
        XCTAssertEqual(decision.notes.count, 2)
    }

    func testARampScalesTheDelayByTheStrengthAtTheCallsPlannedTime() {
        var w = FaultFixtures.window(push: FaultFixtures.push { $0.delay = .constant(1_000_000) })
        w.rampNanos = 4_000
        // planned at 1 µs into a 4 µs ramp: a quarter of the delay.
        XCTAssertEqual(FaultFixtures.decide([w], seq: 1).delayNanos, 250_000)
    }
}
