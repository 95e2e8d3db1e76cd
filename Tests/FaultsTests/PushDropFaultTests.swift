import Faults
import XCTest

final class PushDropFaultTests: XCTestCase {
    func testDropsExactlyThePushesTheLegacySaltTwoDrawHit() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.drop = 0.3 })
        for seq in UInt64(1)...500 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 2) < 0.3
            let decision = FaultFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.fate == .drop, expected, "seq \(seq)")
            XCTAssertEqual(decision.notes.map(\.kind), expected ? ["push.dropped"] : [])
        }
    }

    func testAnErrorSealsThePushBeforeTheDropIsDecided() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.errorRate = 1; $0.drop = 1 })
        let decision = FaultFixtures.decide([w], seq: 1)
        XCTAssertEqual(decision.fate, .reject(status: 503))
        XCTAssertEqual(decision.notes.map(\.kind), ["push.error_503"])
    }
}
