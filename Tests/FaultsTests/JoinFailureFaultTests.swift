import Faults
import XCTest

final class JoinFailureFaultTests: XCTestCase {
    func testJoinsFailExactlyWhereTheLegacySaltSixDrawHit() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.joinFailure = 0.3 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        for seq in UInt64(0)...300 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 6) < 0.3
            let hit = schedule.joinDecision(device: 9, subject: FaultFixtures.subject, seq: seq, plannedSinceLoad: 1,
                                            flow: "f")
            XCTAssertEqual(hit?.decision == .fail, expected, "seq \(seq)")
            if expected { XCTAssertEqual(hit?.note.kind, "device.join_failed") } else { XCTAssertNil(hit) }
        }
    }
}
