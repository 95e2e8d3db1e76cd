import Chaos
import Scenario
import XCTest

final class PushGoAwayFaultTests: XCTestCase {
    func testGoAwayIsDecidedByTheLegacySaltSevenDrawAndSurvivesARejection() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.goaway = 0.5; $0.errorRate = 1 })
        for seq in UInt64(1)...200 {
            let expected = ChaosFixtures.legacyDraw(0, ChaosFixtures.subject, seq, 7) < 0.5
            let decision = ChaosFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.goAway, expected, "seq \(seq)")
            XCTAssertEqual(decision.fate, .reject(status: 503))
            XCTAssertEqual(decision.notes.first?.kind, expected ? "push.goaway" : "push.error_503")
        }
    }

    func testASecondWindowDoesNotNoteASecondGoAway() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.goaway = 1 })
        XCTAssertEqual(ChaosFixtures.decide([w, w], seq: 1).notes.map(\.kind), ["push.goaway"])
    }
}
