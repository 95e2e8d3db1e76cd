import Chaos
import Scenario
import XCTest

final class PushDropFaultTests: XCTestCase {
    func testDropsExactlyThePushesTheLegacySaltTwoDrawHit() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.drop = 0.3 })
        for seq in UInt64(1)...500 {
            let expected = ChaosFixtures.legacyDraw(0, ChaosFixtures.subject, seq, 2) < 0.3
            let decision = ChaosFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.fate == .drop, expected, "seq \(seq)")
            XCTAssertEqual(decision.notes.map(\.kind), expected ? ["push.dropped"] : [])
        }
    }

    func testAnErrorSealsThePushBeforeTheDropIsDecided() {
        let w = ChaosFixtures.window(push: ChaosFixtures.push { $0.errorRate = 1; $0.drop = 1 })
        let decision = ChaosFixtures.decide([w], seq: 1)
        XCTAssertEqual(decision.fate, .reject(status: 503))
        XCTAssertEqual(decision.notes.map(\.kind), ["push.error_503"])
    }
}
