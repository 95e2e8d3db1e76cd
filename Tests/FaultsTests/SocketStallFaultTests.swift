import Faults
import XCTest

final class SocketStallFaultTests: XCTestCase {
    private func window(_ stall: SocketStallFaults?, drop: SocketDropFaults? = nil) -> FaultWindow {
        var device = DeviceFaultSettings()
        device.socketStall = stall
        device.socketDrop = drop
        return FaultWindow(name: "stalls", atNanos: 1_000_000_000, forNanos: 5_000_000_000, device: device)
    }

    func testEveryDeviceOfTheWindowStallsOnceForItsDrawnTime() {
        let w = window(SocketStallFaults(duration: .uniform(1_000_000_000, 3_000_000_000)))
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        XCTAssertTrue(schedule.hasSocketFaults)
        var lengths = Set<UInt64>()
        for device in 0..<100 {
            let plan = schedule.socketFaults(device: device)
            XCTAssertEqual(plan.count, 1)
            guard let event = plan.first, case .stall(let nanos) = event.action else {
                return XCTFail("device \(device): \(plan)")
            }
            XCTAssertTrue((1_000_000_000...3_000_000_000).contains(nanos), "\(nanos)")
            XCTAssertTrue(w.contains(event.atNanos))
            XCTAssertEqual(event.note.kind, "device.socket_stalled")
            lengths.insert(nanos)
        }
        XCTAssertGreaterThan(lengths.count, 90, "drawn per device")
    }

    func testAShareStallsOnlyThatShare() {
        let schedule = FaultSchedule(windows: [window(SocketStallFaults(probability: 0.1, duration: .constant(1)))],
                                     seed: FaultFixtures.seed)
        let hit = (0..<1000).filter { !schedule.socketFaults(device: $0).isEmpty }.count
        XCTAssertTrue((60...140).contains(hit), "\(hit)")
    }

    func testADropAndAStallInOneWindowAreDrawnFromStreamsOfTheirOwn() {
        let both = FaultSchedule(windows: [window(SocketStallFaults(duration: .constant(2_000_000_000)),
                                                  drop: SocketDropFaults(probability: 1))], seed: 9)
        let dropOnly = FaultSchedule(windows: [window(nil, drop: SocketDropFaults(probability: 1))], seed: 9)
        for device in 0..<50 {
            let plan = both.socketFaults(device: device)
            XCTAssertEqual(plan.count, 2)
            XCTAssertEqual(plan.filter { $0.note.kind == "device.socket_dropped" },
                           dropOnly.socketFaults(device: device), "adding a stall moves no drop")
            XCTAssertLessThanOrEqual(plan[0].atNanos, plan[1].atNanos, "in time order")
        }
    }

    func testAStallOfNoTimeIsNoFault() {
        let schedule = FaultSchedule(windows: [window(SocketStallFaults(duration: .constant(0)))], seed: 1)
        XCTAssertEqual(schedule.socketFaults(device: 1), [])
        XCTAssertNil(SocketStallFault(window: window(nil)))
    }
}
