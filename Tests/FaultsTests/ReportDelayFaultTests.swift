import Faults
import Quantities
import XCTest

final class ReportDelayFaultTests: XCTestCase {
    func testTheReportDelayIsTheLegacySaltFiveSampleOncePerCallPart() {
        let d = Distribution.exponential(mean: 500_000_000)
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.reportDelay = d }, name: "slow")
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        for call in 0..<50 {
            let subject = FaultSchedule.subject(call: call, role: 0)
            let hit = schedule.reportDelay(device: 2, subject: subject, plannedSinceLoad: 5, flow: "f")
            XCTAssertEqual(hit?.delayNanos, FaultFixtures.legacySample(d, 0, subject, 0, 5))
            XCTAssertEqual(hit?.note, FaultNote(window: "slow", kind: "device.report_delayed"))
        }
    }

    func testNoWindowWithAReportDelayMeansNone() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.offline = 0.1 })
        let schedule = FaultSchedule(windows: [w], seed: 1)
        XCTAssertNil(schedule.reportDelay(device: 2, subject: 3, plannedSinceLoad: 5, flow: "f"))
    }
}
