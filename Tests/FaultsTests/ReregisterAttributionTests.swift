import Faults
import XCTest

/// A device re-registering after a target kill (`target.reregistering` → `target.reregistered`, logged by the
/// Driver's SIP flow recovery): a call of that device overlapping the span is the kill's, one after it is not.
final class ReregisterAttributionTests: XCTestCase {
    private let s: UInt64 = 1_000_000_000

    private func row(_ t: UInt64, _ kind: String, device: Int) -> FaultLog.Entry {
        FaultLog.Entry(sinceLoadNanos: t, window: "restart", kind: kind, device: device, seq: 0, call: -1, role: 0)
    }

    private func attribution(_ log: FaultLog, devices: [Int], from: UInt64, to: UInt64) -> CallAttribution {
        CallAttribution.of(call: 1, devices: devices, fromNanos: from * s, toNanos: to * s, in: log)
    }

    func testACallOfADeviceStillReRegisteringIsTheKillsAndLaterOnesAreNot() {
        let log = FaultLog()
        log.add(row(2 * s, TargetKillFault.reregistering, device: 3))
        log.add(row(5 * s, TargetKillFault.reregistered, device: 3))
        XCTAssertEqual(attribution(log, devices: [3, 4], from: 4, to: 7), .faults([TargetKillFault.killed]))
        XCTAssertEqual(attribution(log, devices: [3, 4], from: 6, to: 9), .target, "placed after it was back")
        XCTAssertEqual(attribution(log, devices: [4, 5], from: 4, to: 7), .target, "another device's recovery")
        log.add(row(10 * s, TargetKillFault.reregistering, device: 4))
        XCTAssertEqual(attribution(log, devices: [4], from: 12, to: 13), .faults([TargetKillFault.killed]),
                       "still re-registering: open until its 200")
    }
}
