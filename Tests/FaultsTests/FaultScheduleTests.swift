import Faults
import XCTest

final class FaultScheduleTests: XCTestCase {
    func testAWindowOnAShareOfDevicesPicksThemByTheLegacyMembershipDraw() {
        var w = FaultFixtures.window(push: FaultFixtures.push { $0.drop = 1 })
        w.devices = 0.3
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        for device in 0..<200 {
            let expected = FaultFixtures.legacyDraw(0, device, 0, 0xD0) < 0.3
            XCTAssertEqual(!schedule.active(at: 5, device: device).isEmpty, expected, "device \(device)")
        }
    }

    func testPushesBelongToTheWindowTheirCallWasPlannedInAndToItsFlows() {
        var w = FaultFixtures.window(push: FaultFixtures.push { $0.drop = 1 })
        w.atNanos = 1_000
        w.flows = ["group-call"]
        let schedule = FaultSchedule(windows: [w], seed: 1)
        func fate(_ planned: UInt64, _ flow: String) -> PushDecision.Fate {
            schedule.pushDecision(device: 0, subject: 0, seq: 1, plannedSinceLoad: planned, flow: flow).fate
        }
        XCTAssertEqual(fate(999, "group-call"), .deliver)
        XCTAssertEqual(fate(1_000, "group-call"), .drop)
        XCTAssertEqual(fate(1_000, "incoming-1to1"), .deliver)
    }

    func testTheSubjectKeysACallsRoleNotTheDevice() {
        XCTAssertEqual(FaultSchedule.subject(call: 5, role: 1), 81)
        XCTAssertNotEqual(FaultSchedule.subject(call: 5, role: 1), FaultSchedule.subject(call: 5, role: 2))
    }
}
