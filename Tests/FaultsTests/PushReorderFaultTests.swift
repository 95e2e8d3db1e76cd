import Faults
import XCTest

final class PushReorderFaultTests: XCTestCase {
    func testHoldsExactlyThePushesTheLegacySaltSixDrawHitForTheHold() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.reorder = 0.3; $0.reorderHoldNanos = 1_500 })
        for seq in UInt64(1)...400 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 6) < 0.3
            XCTAssertEqual(FaultFixtures.decide([w], seq: seq).holdNanos, expected ? 1_500 : 0, "seq \(seq)")
        }
    }

    func testTheLongestHoldOfOverlappingWindowsWins() {
        let short = FaultFixtures.window(push: FaultFixtures.push { $0.reorder = 1; $0.reorderHoldNanos = 10 })
        let long = FaultFixtures.window(push: FaultFixtures.push { $0.reorder = 1; $0.reorderHoldNanos = 30 })
        XCTAssertEqual(FaultFixtures.decide([long, short], seq: 1).holdNanos, 30)
    }
}
