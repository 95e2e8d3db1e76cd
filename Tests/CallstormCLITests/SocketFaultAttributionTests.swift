@testable import CallstormCLI
import Checker
import RunFormats
import XCTest

/// Socket faults in faults.csv become injected faults on the checker's path: a drop or a stall touches its
/// device's views around its instant, a storm every device's views for the lookback after it, and none of them
/// ever excuses what the server answered.
final class SocketFaultAttributionTests: XCTestCase {
    private func faults(_ lines: [String], runEndNanos: UInt64) -> [InjectedFault] {
        let rows = FaultRow.rows(fromCSV: ([FaultRow.header] + lines).map { $0 + "\n" }.joined())
        return HistoryCheck.injectedFaults(rows, offsetNanos: 1_000_000_000, runEndNanos: runEndNanos)
    }

    private func violation(_ rule: Rule, devices: [String], at seconds: Double) -> Violation {
        let nanos = UInt64(seconds * 1e9)
        return Violation(rule: rule, conversations: ["c1"], ops: [], devices: devices, message: "m",
                         window: nanos...nanos + 1_000_000_000, events: [])
    }

    func testADroppedOrStalledSocketIsADeviceFaultOnItsDevice() {
        let faults = faults([
            "2.000000,drops,device.socket_dropped,dev-4,-1,-1,0",
            "3.000000,stalls,device.socket_stalled,dev-5,-1,-1,0",
            "4.000000,skews,device.clock_skewed,dev-6(-80ms),-1,-1,0",
        ], runEndNanos: 20_000_000_000)
        XCTAssertEqual(faults.map(\.family), [.device, .device, .device])
        XCTAssertEqual(faults.map(\.device), ["dev-4", "dev-5", "dev-6"], "a skew's note is not part of the device")
        XCTAssertEqual(faults.map(\.call), [nil, nil, nil], "a socket belongs to no one call")
        let view = violation(.finalViewsAgree, devices: ["dev-4"], at: 5)
        let other = violation(.finalViewsAgree, devices: ["dev-9"], at: 5)
        let (server, attributed) = FaultAttribution.split([view, other], events: [], faults: faults)
        XCTAssertEqual(server, [other])
        XCTAssertEqual(attributed.map(\.faults), [["device.socket_dropped"]])
    }

    func testAStormTouchesEveryDevicesViewsAfterItButNeverTheServersAnswers() {
        let faults = faults(["2.000000,storm,target.socket_storm_1001,target,-1,-1,0"], runEndNanos: 60_000_000_000)
        XCTAssertEqual(faults.count, 1)
        XCTAssertEqual(faults.first?.family, .network)
        let soon = violation(.finalViewsAgree, devices: ["dev-1"], at: 10)
        let before = violation(.finalViewsAgree, devices: ["dev-2"], at: 0.5)
        let lost = violation(.mergeUnion, devices: ["dev-3"], at: 10)
        let (server, attributed) = FaultAttribution.split([soon, before, lost], events: [], faults: faults)
        XCTAssertEqual(server, [before, lost])
        XCTAssertEqual(attributed.map(\.faults), [["target.socket_storm_1001"]])
    }

    func testASIPDatagramFaultOfNoCallTouchesNoFindingAndALapseLastsUntilTheDeviceRegistersAgain() {
        let faults = faults([
            "2.000000,sip,sip.message_lost,dev-4,-1,-1,9",  // a REGISTER refresh's datagram
            "3.000000,sip,sip.registration_lapsed,dev-5,-1,-1,0",
            "50.000000,sip,sip.registration_restored,dev-5,-1,-1,0",
        ], runEndNanos: 60_000_000_000)
        XCTAssertEqual(faults.map(\.kind), ["sip.registration_lapsed"])
        XCTAssertEqual(faults.first?.toNanos, 51_000_000_000, "until it registered again")
        let onLost = violation(.finalViewsAgree, devices: ["dev-4"], at: 3)
        let lapsedLongAgo = violation(.finalViewsAgree, devices: ["dev-5"], at: 45)
        let (server, attributed) = FaultAttribution.split([onLost, lapsedLongAgo], events: [], faults: faults)
        XCTAssertEqual(server, [onLost])
        XCTAssertEqual(attributed.map(\.faults), [["sip.registration_lapsed"]])
    }
}
