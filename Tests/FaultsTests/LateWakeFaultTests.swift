import Faults
import XCTest

final class LateWakeFaultTests: XCTestCase {
    func testItsShareOfWakesSendsTheRegisterAfterTheDrawnDelayOncePerCallPart() {
        let sip = FaultFixtures.sip { $0.lateWake = LateWakeFaults(probability: 0.5, after: .constant(12_000_000_000)) }
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: sip, name: "sleepy")], seed: 3)
        var late = 0
        for call in 0..<200 {
            let subject = FaultSchedule.subject(call: call, role: 1)
            let hit = schedule.sipWakeDecision(device: 4, subject: subject, plannedSinceLoad: 9, flow: "f")
            XCTAssertEqual(hit?.action, schedule.sipWakeDecision(device: 4, subject: subject, plannedSinceLoad: 9,
                                                                 flow: "f")?.action, "call \(call) decides the same")
            guard let hit else { continue }
            late += 1
            XCTAssertEqual(hit.action, .late(nanos: 12_000_000_000))
            XCTAssertEqual(hit.note, FaultNote(window: "sleepy", kind: LateWakeFault.late))
        }
        XCTAssertGreaterThan(late, 70)
        XCTAssertLessThan(late, 130)
    }

    func testACallPlannedOutsideTheWindowWakesOnTime() {
        var w = FaultFixtures.window(sip: FaultFixtures.sip { $0.lateWake = LateWakeFaults(after: .constant(1)) })
        w.atNanos = 1_000
        let schedule = FaultSchedule(windows: [w], seed: 3)
        XCTAssertNil(schedule.sipWakeDecision(device: 4, subject: 17, plannedSinceLoad: 999, flow: "f"))
        XCTAssertNotNil(schedule.sipWakeDecision(device: 4, subject: 17, plannedSinceLoad: 1_000, flow: "f"))
    }
}
