import Faults
import XCTest

final class RelaunchFaultTests: XCTestCase {
    /// Hits the call parts its own stream's draw puts under the share, at its moment only, noting
    /// `device.relaunch`; a window without it draws none.
    func testHitsExactlyThePartsItsStreamDrawsAtItsMomentAndNoWindowWithoutIt() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.life.relaunch = 0.3 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        var hits = 0
        for call in 0..<300 {
            let subject = FaultSchedule.subject(call: call, role: 1)
            let expected = schedule.draw(0, subject, 0, RelaunchFault.stream) < 0.3
            let hit = schedule.lifeEvent(at: .connected, device: 9, subject: subject, plannedSinceLoad: 1, flow: "f")
            XCTAssertEqual(hit != nil, expected, "call \(call)")
            if let hit {
                hits += 1
                XCTAssertEqual(hit.note.kind, "device.relaunch")
                XCTAssertEqual(hit.event, .relaunch)
            }
            let other: LifeMoment = LifeMoment.connected == .ringing ? .connected : .ringing
            XCTAssertNil(schedule.lifeEvent(at: other, device: 9, subject: subject, plannedSinceLoad: 1, flow: "f"))
        }
        XCTAssertGreaterThan(hits, 50)
        XCTAssertLessThan(hits, 130)
        let none = FaultSchedule(windows: [FaultFixtures.window(device: FaultFixtures.device { $0.offline = 0.5 })],
                                 seed: FaultFixtures.seed)
        XCTAssertFalse(none.hasLifeEvents)
        XCTAssertNil(none.lifeEvent(at: .connected, device: 9, subject: 1, plannedSinceLoad: 1, flow: "f"))
    }
}
