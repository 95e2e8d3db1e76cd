import Faults
import XCTest

final class SocketDropFaultTests: XCTestCase {
    private func window(_ drop: SocketDropFaults, at: UInt64 = 2_000_000_000) -> FaultWindow {
        var device = DeviceFaultSettings()
        device.socketDrop = drop
        return FaultWindow(name: "drops", atNanos: at, forNanos: 4_000_000_000, device: device)
    }

    func testThatShareOfDevicesDropsOnceAtAnInstantInsideTheWindowDrawnFromTheSeed() {
        let w = window(SocketDropFaults(probability: 0.3))
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        var hit = 0
        var instants = Set<UInt64>()
        for device in 0..<400 {
            let plan = schedule.socketFaults(device: device)
            XCTAssertLessThanOrEqual(plan.count, 1, "once per device and window")
            XCTAssertEqual(plan, FaultSchedule(windows: [w], seed: FaultFixtures.seed).socketFaults(device: device),
                           "the same seed plans the same")
            guard let event = plan.first else { continue }
            hit += 1
            instants.insert(event.atNanos)
            XCTAssertTrue(w.contains(event.atNanos), "\(event.atNanos)")
            XCTAssertEqual(event.action, .drop(code: nil))
            XCTAssertEqual(event.note, FaultNote(window: "drops", kind: "device.socket_dropped"))
            XCTAssertEqual(event.window, 0)
        }
        XCTAssertTrue((90...150).contains(hit), "about 30% of 400 devices: \(hit)")
        XCTAssertEqual(instants.count, hit, "instants spread over the window")
        let other = FaultSchedule(windows: [w], seed: 7)
        XCTAssertNotEqual((0..<400).map { other.socketFaults(device: $0) },
                          (0..<400).map { schedule.socketFaults(device: $0) }, "another seed, other devices")
    }

    func testADropWithACodeClosesWithItAndNamesItInItsKind() throws {
        let schedule = FaultSchedule(windows: [window(SocketDropFaults(probability: 1, code: 1001))], seed: 3)
        let event = try XCTUnwrap(schedule.socketFaults(device: 5).first)
        XCTAssertEqual(event.action, .drop(code: 1001))
        XCTAssertEqual(event.note.kind, "device.socket_closed_1001")
    }

    func testAWindowWithADevicesShareOnlyPlansForItsDevices() {
        var w = window(SocketDropFaults(probability: 1))
        w.devices = 0.25
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        let planned = (0..<400).filter { !schedule.socketFaults(device: $0).isEmpty }
        let members = (0..<400).filter { !schedule.active(at: w.atNanos, device: $0).isEmpty }
        XCTAssertEqual(planned, members)
    }

    func testARampMakesEarlyInstantsRarer() {
        var w = window(SocketDropFaults(probability: 1), at: 0)
        w.rampNanos = w.forNanos
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        let events = (0..<1000).compactMap { schedule.socketFaults(device: $0).first }
        let early = events.filter { $0.atNanos < w.forNanos / 2 }.count
        XCTAssertLessThan(early * 2, events.count - early, "strength grows over the window")
    }

    func testFlowsNarrowADropToDevicesInACallOfThoseFlows() throws {
        var w = window(SocketDropFaults(probability: 1))
        w.flows = ["group-merge"]
        let schedule = FaultSchedule(windows: [w], seed: 1)
        let event = try XCTUnwrap(schedule.socketFaults(device: 0).first)
        XCTAssertTrue(schedule.applies(event, flow: "group-merge", role: "host"))
        XCTAssertFalse(schedule.applies(event, flow: "incoming-1to1", role: "callee"))
        XCTAssertFalse(schedule.applies(event, flow: nil, role: nil), "a device in no call")
    }

    func testRolesNarrowADropToDevicesPlayingThemAtItsInstant() throws {
        let schedule = FaultSchedule(windows: [window(SocketDropFaults(probability: 1, roles: ["callee"]))], seed: 1)
        let event = try XCTUnwrap(schedule.socketFaults(device: 0).first)
        XCTAssertEqual(event.roles, ["callee"])
        XCTAssertTrue(schedule.applies(event, flow: "incoming-1to1", role: "callee"))
        XCTAssertFalse(schedule.applies(event, flow: "incoming-1to1", role: "caller"))
        XCTAssertFalse(schedule.applies(event, flow: nil, role: nil))
        let any = try XCTUnwrap(FaultSchedule(windows: [window(SocketDropFaults(probability: 1))], seed: 1)
            .socketFaults(device: 0).first)
        XCTAssertTrue(schedule.applies(any, flow: nil, role: nil), "no roles, no flows: any device")
        XCTAssertEqual(any.atNanos, event.atNanos, "roles narrow where it acts, not what is drawn")
    }

    func testAWindowWithoutItPlansNoSocketFault() {
        let schedule = FaultSchedule(windows: [FaultFixtures.window(push: FaultFixtures.push { $0.drop = 1 })],
                                     seed: 1)
        XCTAssertFalse(schedule.hasSocketFaults)
        XCTAssertEqual(schedule.socketFaults(device: 3), [])
        XCTAssertNil(SocketDropFault(window: window(SocketDropFaults(probability: 0))))
    }
}
