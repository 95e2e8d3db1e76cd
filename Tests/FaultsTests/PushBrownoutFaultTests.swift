import Faults
import XCTest

final class PushBrownoutFaultTests: XCTestCase {
    func testARefusingWindowRefusesAndAStallingOneStallsUntilTheWindowEnds() {
        let refuse = FaultFixtures.window(push: FaultFixtures.push { $0.brownout = .refuse }, name: "down")
        let schedule = FaultSchedule(windows: [refuse], seed: FaultFixtures.seed)
        XCTAssertTrue(schedule.hasBrownout)
        let refused = schedule.brownout(at: 1_000, device: 3, flow: nil)
        XCTAssertEqual(refused?.answer, .refuse)
        XCTAssertEqual(refused?.note, FaultNote(window: "down", kind: "push.brownout_refused"))

        let stall = FaultFixtures.window(push: FaultFixtures.push { $0.brownout = .stall })
        let stalled = FaultSchedule(windows: [stall], seed: 1).brownout(at: 4_000_000_000, device: 3, flow: "x")
        XCTAssertEqual(stalled?.answer, .stall(forNanos: 6_000_000_000))
        XCTAssertEqual(stalled?.note.kind, "push.brownout_stalled")
    }

    func testAWindowForOtherFlowsLeavesTheGatewayUp() {
        var w = FaultFixtures.window(push: FaultFixtures.push { $0.brownout = .refuse })
        w.flows = ["group-call"]
        let schedule = FaultSchedule(windows: [w], seed: 1)
        XCTAssertNil(schedule.brownout(at: 1_000, device: 3, flow: "incoming-1to1"))
        XCTAssertNil(schedule.brownout(at: 1_000, device: 3, flow: nil))
        XCTAssertNotNil(schedule.brownout(at: 1_000, device: 3, flow: "group-call"))
        XCTAssertNil(schedule.brownout(at: 11_000_000_000, device: 3, flow: "group-call"))
    }
}
