import Faults
import XCTest

final class SocketStormFaultTests: XCTestCase {
    func testAStormWindowStormsOnceWhenItOpensAndKillsNothing() {
        let abrupt = FaultWindow(name: "storm", atNanos: 2_000, forNanos: 1_000,
                                 target: TargetFaults(kill: false, socketStorm: SocketStormFaults()))
        let going = FaultWindow(name: "restart", atNanos: 5_000, forNanos: 1_000,
                                target: TargetFaults(kill: false, socketStorm: SocketStormFaults(code: 1001)))
        var schedule = SocketStormSchedule(windows: [abrupt, FaultFixtures.window(), going])
        XCTAssertEqual(schedule.storms[0]?.kind, "target.socket_storm")
        XCTAssertEqual(schedule.storms[2]?.kind, "target.socket_storm_1001")
        XCTAssertEqual(schedule.storms[2]?.code, 1001)
        XCTAssertNil(schedule.storms[1])
        XCTAssertEqual(schedule.due(at: 1_999), [])
        XCTAssertEqual(schedule.due(at: 2_000), [0])
        XCTAssertEqual(schedule.due(at: 2_500), [], "once")
        XCTAssertEqual(schedule.due(at: 9_000), [2])
        XCTAssertTrue(TargetSchedule(windows: [abrupt, going]).isEmpty, "a storm is no kill")
    }

    func testAWindowWithoutAStormMakesNone() {
        XCTAssertNil(SocketStormFault(window: FaultFixtures.window(target: TargetFaults())))
        XCTAssertTrue(SocketStormSchedule(windows: [FaultFixtures.window()]).isEmpty)
    }

    func testTheFaultTableDescribesSocketFaults() {
        var device = DeviceFaultSettings()
        device.socketDrop = SocketDropFaults(probability: 0.2, code: 1001)
        device.socketStall = SocketStallFaults(probability: 0.5, duration: .constant(2_000_000_000))
        let w = FaultFixtures.window(device: device,
                                     target: TargetFaults(kill: false, socketStorm: SocketStormFaults()))
        XCTAssertEqual(FaultDescription.describe(w), "device: socket_drop 20% (close 1001), socket_stall 2s on 50% · "
            + "target: socket_storm (abrupt)")
    }
}
