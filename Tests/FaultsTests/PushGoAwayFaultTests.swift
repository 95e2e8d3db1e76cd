import Faults
import XCTest

final class PushGoAwayFaultTests: XCTestCase {
    func testGoAwayIsDecidedByTheLegacySaltSevenDrawAndSurvivesARejection() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.goaway = 0.5; $0.errorRate = 1 })
        for seq in UInt64(1)...200 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 7) < 0.5
            let decision = FaultFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.goAway, expected, "seq \(seq)")
            XCTAssertEqual(decision.fate, .reject(status: 503))
            XCTAssertEqual(decision.notes.first?.kind, expected ? "push.goaway" : "push.error_503")
        }
    }

    func testASecondWindowDoesNotNoteASecondGoAway() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.goaway = 1 })
        XCTAssertEqual(FaultFixtures.decide([w, w], seq: 1).notes.map(\.kind), ["push.goaway"])
    }
}
