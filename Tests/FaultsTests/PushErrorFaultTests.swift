import Faults
import XCTest

final class PushErrorFaultTests: XCTestCase {
    func testRejectsExactlyThePushesTheLegacySaltOneDrawHitWithTheConfiguredStatus() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.errorRate = 0.2; $0.errorStatus = 429 })
        var hits = 0
        for seq in UInt64(1)...500 {
            let expected = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 1) < 0.2
            let decision = FaultFixtures.decide([w], seq: seq)
            XCTAssertEqual(decision.fate == .reject(status: 429), expected, "seq \(seq)")
            if expected {
                hits += 1
                XCTAssertEqual(decision.notes, [FaultNote(window: "w", kind: "push.error_429")])
            }
        }
        XCTAssertGreaterThan(hits, 60)
        XCTAssertLessThan(hits, 140)
    }

    func testAWindowWithoutAnErrorRateMakesNoFault() {
        XCTAssertNil(PushErrorFault(window: FaultFixtures.window(push: PushFaults())))
        XCTAssertNil(PushErrorFault(window: FaultFixtures.window()))
    }
}
