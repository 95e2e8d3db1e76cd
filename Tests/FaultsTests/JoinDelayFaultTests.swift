import Faults
import Quantities
import XCTest

final class JoinDelayFaultTests: XCTestCase {
    func testEveryJoinIsDelayedByTheLegacySaltSevenSampleUnlessItFailed() {
        let d = Distribution.uniform(1_000, 9_000)
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.joinDelay = d; $0.joinFailure = 0.5 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        for seq in UInt64(0)...100 {
            let failed = FaultFixtures.legacyDraw(0, FaultFixtures.subject, seq, 6) < 0.5
            let hit = schedule.joinDecision(device: 9, subject: FaultFixtures.subject, seq: seq, plannedSinceLoad: 1,
                                            flow: "f")
            let expected: JoinDecision = failed
                ? .fail : .delay(nanos: FaultFixtures.legacySample(d, 0, FaultFixtures.subject, seq, 7))
            XCTAssertEqual(hit?.decision, expected, "seq \(seq)")
            XCTAssertEqual(hit?.note.kind, failed ? "device.join_failed" : "device.join_delayed")
        }
    }
}
