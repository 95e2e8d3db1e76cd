import Chaos
import XCTest

final class CallAttributionTests: XCTestCase {
    func testACallIsPutDownToTheFaultsLoggedAgainstItAndNoOther() {
        let log = FaultLog()
        log.add(.init(sinceLoadNanos: 1, window: "w", kind: "sip.late_wake", device: 3, seq: 0, call: 7, role: 1))
        log.add(.init(sinceLoadNanos: 2, window: "w", kind: "sip.message_lost", device: 3, seq: 4, call: 7, role: 1))
        log.add(.init(sinceLoadNanos: 3, window: "w", kind: "sip.message_lost", device: 3, seq: 5, call: 7, role: 1))
        log.add(.init(sinceLoadNanos: 4, window: "w", kind: "push.dropped", device: 5, seq: 1, call: 8, role: 1))
        XCTAssertEqual(CallAttribution.of(call: 7, in: log), .faults(["sip.late_wake", "sip.message_lost"]))
        XCTAssertEqual(CallAttribution.of(call: 8, in: log), .faults(["push.dropped"]))
    }

    func testAFailedCallNoFaultNamedStaysTheTargetsEvenInAChaosRun() {
        let log = FaultLog()
        // Faults elsewhere in the run, and faults on no call (a socket drop between calls), excuse nothing.
        log.add(.init(sinceLoadNanos: 1, window: "w", kind: "push.dropped", device: 5, seq: 1, call: 8, role: 1))
        log.add(.init(sinceLoadNanos: 2, window: "w", kind: "device.socket_dropped", device: 9, seq: 0))
        XCTAssertEqual(CallAttribution.of(call: 9, in: log), .target)
        XCTAssertEqual(CallAttribution.of(call: -1, in: log), .target)
    }
}
