import Faults
import Glibc
import XCTest

final class TargetKillFaultTests: XCTestCase {
    func testAKillWindowKillsWhenItOpensAndRestartsAfterItsDelayOrAtItsEnd() {
        var early = FaultWindow(name: "crash", atNanos: 2_000, forNanos: 10_000,
                                target: TargetFaults(restartAfterNanos: 3_000))
        early.devices = 1
        let late = FaultWindow(name: "stop", atNanos: 5_000, forNanos: 1_000, target: TargetFaults(signal: "TERM"))
        let push = FaultFixtures.window(push: FaultFixtures.push { $0.drop = 1 })
        var schedule = TargetSchedule(windows: [early, push, late])
        XCTAssertEqual(schedule.faults[0]?.signal, SIGKILL)
        XCTAssertEqual(schedule.faults[2]?.signal, SIGTERM)
        XCTAssertNil(schedule.faults[1])
        XCTAssertEqual(schedule.due(at: 1_000), [])
        XCTAssertEqual(schedule.due(at: 2_000), [.kill(window: 0)])
        XCTAssertEqual(schedule.due(at: 2_500), [], "each step once")
        XCTAssertEqual(schedule.due(at: 5_000), [.restart(window: 0), .kill(window: 2)])
        XCTAssertEqual(schedule.due(at: 6_000), [.restart(window: 2)])
        XCTAssertEqual(schedule.due(at: 99_000), [])
    }

    func testAWindowWithoutATargetSectionKillsNothing() {
        XCTAssertNil(TargetKillFault(window: FaultFixtures.window()))
        XCTAssertTrue(TargetSchedule(windows: [FaultFixtures.window()]).isEmpty)
    }
}
