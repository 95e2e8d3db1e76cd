import Faults
import XCTest

final class FilteredFaultTests: XCTestCase {
    /// Hits the call parts its own stream's draw puts under the share, at its moment only, noting
    /// `device.filtered`; a window without it draws none.
    func testHitsExactlyThePartsItsStreamDrawsAtItsMomentAndNoWindowWithoutIt() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.life.filtered = 0.3 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        var hits = 0
        for call in 0..<300 {
            let subject = FaultSchedule.subject(call: call, role: 1)
            let expected = schedule.draw(0, subject, 0, FilteredFault.stream) < 0.3
            let hit = schedule.lifeEvent(at: .ringing, device: 9, subject: subject, plannedSinceLoad: 1, flow: "f")
            XCTAssertEqual(hit != nil, expected, "call \(call)")
            if let hit {
                hits += 1
                XCTAssertEqual(hit.note.kind, "device.filtered")
                XCTAssertEqual(hit.event, .filtered)
            }
            let other: LifeMoment = LifeMoment.ringing == .ringing ? .connected : .ringing
            XCTAssertNil(schedule.lifeEvent(at: other, device: 9, subject: subject, plannedSinceLoad: 1, flow: "f"))
        }
        XCTAssertGreaterThan(hits, 50)
        XCTAssertLessThan(hits, 130)
        let none = FaultSchedule(windows: [FaultFixtures.window(device: FaultFixtures.device { $0.offline = 0.5 })],
                                 seed: FaultFixtures.seed)
        XCTAssertFalse(none.hasLifeEvents)
        XCTAssertNil(none.lifeEvent(at: .ringing, device: 9, subject: 1, plannedSinceLoad: 1, flow: "f"))
    }
}
