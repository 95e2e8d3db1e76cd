import Chaos
import Scenario
import XCTest

final class JoinFailureFaultTests: XCTestCase {
    func testJoinsFailExactlyWhereTheLegacySaltSixDrawHit() {
        let w = ChaosFixtures.window(device: ChaosFixtures.device { $0.joinFailure = 0.3 })
        let schedule = FaultSchedule(windows: [w], seed: ChaosFixtures.seed)
        for seq in UInt64(0)...300 {
            let expected = ChaosFixtures.legacyDraw(0, ChaosFixtures.subject, seq, 6) < 0.3
            let hit = schedule.joinDecision(device: 9, subject: ChaosFixtures.subject, seq: seq, plannedSinceLoad: 1,
                                            flow: "f")
            XCTAssertEqual(hit?.decision == .fail, expected, "seq \(seq)")
            if expected { XCTAssertEqual(hit?.note.kind, "device.join_failed") } else { XCTAssertNil(hit) }
        }
    }
}
