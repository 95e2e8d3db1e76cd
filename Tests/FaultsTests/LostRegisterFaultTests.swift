import Faults
import XCTest

final class LostRegisterFaultTests: XCTestCase {
    func testItsShareOfWakeRegistersIsLostAndItDecidesBeforeALateWake() {
        let sip = FaultFixtures.sip {
            $0.lostRegister = 0.3
            $0.lateWake = LateWakeFaults(after: .constant(5))
        }
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: sip, name: "gone")], seed: 11)
        var lost = 0
        for call in 0..<300 {
            let hit = schedule.sipWakeDecision(device: 1, subject: FaultSchedule.subject(call: call, role: 1),
                                               plannedSinceLoad: 2, flow: "f")
            // Every wake is late unless its REGISTER is lost first.
            if hit?.action == .registerLost {
                lost += 1
                XCTAssertEqual(hit?.note, FaultNote(window: "gone", kind: LostRegisterFault.lost))
            } else {
                XCTAssertEqual(hit?.action, .late(nanos: 5))
            }
        }
        XCTAssertGreaterThan(lost, 60)
        XCTAssertLessThan(lost, 120)
    }

    func testAWindowWithoutItLosesNoRegister() {
        XCTAssertNil(LostRegisterFault(window: FaultFixtures.window(sip: FaultFixtures.sip { $0.loss = 0.5 })))
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: FaultFixtures.sip { $0.loss = 1 })], seed: 1)
        XCTAssertNil(schedule.sipWakeDecision(device: 1, subject: 2, plannedSinceLoad: 3, flow: "f"))
    }
}
