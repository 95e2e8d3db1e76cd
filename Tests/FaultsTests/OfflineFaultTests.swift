import Faults
import XCTest

final class OfflineFaultTests: XCTestCase {
    func testAnOfflineDeviceLosesItsPushesAndItsRequestsByTheLegacyDeviceDraw() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.offline = 0.4 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        var offline = 0
        for device in 0..<300 {
            let expected = FaultFixtures.legacyDraw(0, device, 0, 0x0FF) < 0.4
            XCTAssertEqual(schedule.offline(at: 1_000, device: device), expected, "device \(device)")
            let decision = FaultFixtures.decide([w], seq: 1, device: device)
            XCTAssertEqual(decision.fate == .drop, expected)
            XCTAssertEqual(decision.notes.map(\.kind), expected ? ["device.offline_push_lost"] : [])
            if expected { offline += 1 }
        }
        XCTAssertGreaterThan(offline, 80)
        XCTAssertFalse(schedule.offline(at: 10_000_000_000, device: 0), "after the window")
    }

    func testOfflineIsDecidedAfterAGoAwayAndBeforeAnError() {
        let w = FaultFixtures.window(push: FaultFixtures.push { $0.goaway = 1; $0.errorRate = 1 },
                                     device: FaultFixtures.device { $0.offline = 1 })
        let decision = FaultFixtures.decide([w], seq: 1)
        XCTAssertEqual(decision.fate, .drop)
        XCTAssertTrue(decision.goAway)
        XCTAssertEqual(decision.notes.map(\.kind), ["push.goaway", "device.offline_push_lost"])
    }
}
