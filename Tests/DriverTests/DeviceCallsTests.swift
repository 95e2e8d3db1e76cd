@testable import Driver
import XCTest

/// Which call a push to a device belongs to (`DeviceCalls`, read by the push sink on the gateway's threads): its
/// call, or the waiting call it runs beside it when the push is about that call's conversation.
final class DeviceCallsTests: XCTestCase {
    func testAWaitingCallsPushesAreCountedUnderItAndItBecomesTheDevicesCallWhenTheOtherEnds() {
        let calls = DeviceCalls(devices: 2)
        XCTAssertNil(calls.nextPush(1, conversation: { XCTFail("no waiting call: not read"); return nil }))
        calls.assign(1, call: 7, role: 1, flow: 0, plannedSinceLoad: 5)
        XCTAssertEqual(calls.nextPush(1, conversation: { XCTFail("no waiting call: not read"); return nil })?.call, 7)
        calls.assignWaiting(1, conversation: "waiting", call: 9, role: 1, flow: 1, plannedSinceLoad: 8)
        let waiting = calls.nextPush(1, conversation: { "waiting" })
        XCTAssertEqual([waiting?.call, waiting?.role, waiting.map { Int($0.pushes) }], [9, 1, 1])
        let own = calls.nextPush(1, conversation: { "own" })
        XCTAssertEqual([own?.call, own.map { Int($0.pushes) }], [7, 2], "the device's call counts on")
        XCTAssertEqual(calls.current(1)?.call, 7)

        calls.handOver(1, ending: 7)
        XCTAssertEqual(calls.current(1)?.call, 9)
        let after = calls.nextPush(1, conversation: { XCTFail("no waiting call now: not read"); return nil })
        XCTAssertEqual([after?.call, after.map { Int($0.pushes) }], [9, 2], "its push count goes with it")
        XCTAssertNil(calls.current(0))
    }

    func testTheWaitingCallEndingFirstLeavesTheDevicesCallAndKeepsItsLatePushes() {
        let calls = DeviceCalls(devices: 1)
        calls.assign(0, call: 3, role: 0, flow: 0, plannedSinceLoad: 0)
        calls.assignWaiting(0, conversation: "w", call: 4, role: 1, flow: 0, plannedSinceLoad: 0)
        calls.handOver(0, ending: 4)
        XCTAssertEqual(calls.current(0)?.call, 3)
        XCTAssertEqual(calls.nextPush(0, conversation: { "w" })?.call, 4, "a late push of the ended waiting call")
        XCTAssertEqual(calls.nextPush(0, conversation: { "x" })?.call, 3)
        calls.assign(0, call: 5, role: 0, flow: 0, plannedSinceLoad: 0)
        XCTAssertEqual(calls.nextPush(0, conversation: { XCTFail("a new call: not read"); return nil })?.call, 5)
    }

    /// A wake REGISTER put off for one call's push is not sent for a later call the device woke for since.
    func testAWakePutOffForOneCallIsNotDueOnceTheDeviceWokeForAnother() {
        var wake = WakeState()
        XCTAssertFalse(wake.isDue(2, for: "a"), "woken for nothing")
        wake.wokeFor[2] = "a"
        XCTAssertTrue(wake.isDue(2, for: "a"))
        wake.wokeFor[2] = "b"
        XCTAssertFalse(wake.isDue(2, for: "a"))
        XCTAssertTrue(wake.isDue(2, for: "b"))
    }
}
