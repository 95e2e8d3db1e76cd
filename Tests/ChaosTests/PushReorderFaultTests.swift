import Chaos
import Scenario
import XCTest

final class PushReorderFaultTests: XCTestCase {
    func testHoldsExactlyThePushesTheLegacySaltSixDrawHitForTheHold() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.reorder = 0.3; $0.reorderHoldNanos = 1_500 })
        for seq in UInt64(1)...400 {
            let expected = ChaosFixtures.legacyDraw(0, ChaosFixtures.subject, seq, 6) < 0.3
            XCTAssertEqual(ChaosFixtures.decide([w], seq: seq).holdNanos, expected ? 1_500 : 0, "seq \(seq)")
        }
    }

    func testTheLongestHoldOfOverlappingWindowsWins() {
        let short = ChaosFixtures.window(push: ChaosFixtures.push { $0.reorder = 1; $0.reorderHoldNanos = 10 })
        let long = ChaosFixtures.window(push: ChaosFixtures.push { $0.reorder = 1; $0.reorderHoldNanos = 30 })
        XCTAssertEqual(ChaosFixtures.decide([long, short], seq: 1).holdNanos, 30)
    }
}
