import Faults
import XCTest

final class CallAttributionTests: XCTestCase {
    private let s: UInt64 = 1_000_000_000

    /// Call `call` on devices 3 and 5, from 10 s to 20 s since the load started.
    private func attribution(_ log: FaultLog, call: Int = 7) -> CallAttribution {
        CallAttribution.of(call: call, devices: [3, 5], fromNanos: 10 * s, toNanos: 20 * s, in: log)
    }

    private func row(_ t: UInt64, _ kind: String, window: String = "w", device: Int = -1, call: Int = -1)
        -> FaultLog.Entry {
        FaultLog.Entry(sinceLoadNanos: t, window: window, kind: kind, device: device, seq: 0, call: call, role: 0)
    }

    func testACallIsPutDownToTheFaultsLoggedAgainstItWhenEverTheyCame() {
        let log = FaultLog()
        log.add(row(1 * s, "sip.late_wake", device: 3, call: 7))
        log.add(row(12 * s, "sip.message_lost", device: 3, call: 7))
        log.add(row(13 * s, "sip.message_lost", device: 5, call: 7))
        log.add(row(14 * s, "push.dropped", device: 5, call: 8))
        XCTAssertEqual(attribution(log), .faults(["sip.late_wake", "sip.message_lost"]))
        XCTAssertEqual(attribution(log, call: 8), .faults(["push.dropped"]))
    }

    func testAFaultOnOneOfItsDevicesAndOnNoCallCountsWhileTheCallRan() {
        let log = FaultLog()
        log.add(row(9 * s, "device.socket_dropped", device: 3))  // before the call
        log.add(row(15 * s, "device.socket_stalled", device: 5))  // during it
        log.add(row(16 * s, "device.socket_dropped", device: 4))  // another device
        XCTAssertEqual(attribution(log), .faults(["device.socket_stalled"]))
    }

    func testANetworkWindowOrATargetKillOverlappingTheCallCountsAndOneBeforeItDoesNot() {
        let net = FaultLog()
        net.add(row(2 * s, "network.on", window: "early"))
        net.add(row(5 * s, "network.off", window: "early"))
        XCTAssertEqual(attribution(net), .target, "closed before the call began")
        net.add(row(18 * s, "network.on", window: "late"))
        XCTAssertEqual(attribution(net), .faults(["network.window"]), "open when the call ended")

        let kill = FaultLog()
        kill.add(row(4 * s, "target.killed", window: "k"))
        XCTAssertEqual(attribution(kill), .faults(["target.killed"]), "never restarted")
        let restarted = FaultLog()
        restarted.add(row(4 * s, "target.killed", window: "k"))
        restarted.add(row(6 * s, "target.restarted", window: "k"))
        restarted.add(row(7 * s, "target.socket_storm", window: "storm"))
        XCTAssertEqual(attribution(restarted), .faults(["target.socket_storm"]), "the storm's reconnects ran into it")
    }

    func testAFailedCallNoFaultTouchedStaysTheTargetsEvenInAChaosRun() {
        let log = FaultLog()
        log.add(row(12 * s, "push.dropped", device: 5, call: 8))
        log.add(row(12 * s, "device.socket_dropped", device: 9))
        XCTAssertEqual(attribution(log), .target)
        XCTAssertEqual(CallAttribution.of(call: 7, devices: [3], fromNanos: 0, toNanos: 1, in: log,
                                          extra: ["device.offline"]), .faults(["device.offline"]))
    }

    func testASIPDatagramFaultOnAMessageOfNoCallExcusesNoCallEvenOnItsDeviceWhileItRan() {
        // A REGISTER refresh lost during the call (the Driver names no call for it): Timer E sent it again.
        let log = FaultLog()
        log.add(row(15 * s, "sip.message_lost", device: 3))
        log.add(row(16 * s, "sip.message_delayed", device: 5))
        XCTAssertEqual(attribution(log), .target)
        log.add(row(17 * s, "sip.message_lost", device: 3, call: 7))  // an INVITE of the call
        XCTAssertEqual(attribution(log), .faults(["sip.message_lost"]))
    }

    func testARegistrationLapsedByAFaultExcusesItsDevicesCallsUntilItRegistersAgain() {
        let open = FaultLog()
        open.add(row(5 * s, SIPRegistrationFaults.lapsed, device: 3))
        XCTAssertEqual(attribution(open), .faults([SIPRegistrationFaults.lapsed]),
                       "lapsed before the call, never renewed")
        let renewed = FaultLog()
        renewed.add(row(2 * s, SIPRegistrationFaults.lapsed, device: 5))
        renewed.add(row(4 * s, SIPRegistrationFaults.restored, device: 5))
        renewed.add(row(12 * s, SIPRegistrationFaults.lapsed, device: 4))  // another device
        XCTAssertEqual(attribution(renewed), .target, "registered again before the call; the other device's is not its")
        renewed.add(row(19 * s, SIPRegistrationFaults.lapsed, device: 5))
        XCTAssertEqual(attribution(renewed), .faults([SIPRegistrationFaults.lapsed]), "lapsed while it ran")
    }
}
