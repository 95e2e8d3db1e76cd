import Faults
import XCTest

final class PushDuplicateFaultTests: XCTestCase {
    func testDuplicatesExactlyThePushesTheLegacySaltFourDrawHit() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.duplicate = 0.25 })
        for seq in UInt64(1)...400 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 4) < 0.25
            let decision = FaultFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.copies, expected ? 2 : 1, "seq \(seq)")
            XCTAssertEqual(decision.fate, .deliver)
        }
    }
}
