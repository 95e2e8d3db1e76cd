import Chaos
import Scenario
import XCTest

final class PushDuplicateFaultTests: XCTestCase {
    func testDuplicatesExactlyThePushesTheLegacySaltFourDrawHit() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.duplicate = 0.25 })
        for seq in UInt64(1)...400 {
            let expected = ChaosFixtures.legacyDraw(0, ChaosFixtures.subject, seq, 4) < 0.25
            let decision = ChaosFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.copies, expected ? 2 : 1, "seq \(seq)")
            XCTAssertEqual(decision.fate, .deliver)
        }
    }
}
