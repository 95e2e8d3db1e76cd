@testable import Driver
import Metrics
import Scenario
import XCTest

/// Call waiting on the real worker under the manual clock: a device in a planned call takes an outside party's call
/// beside it (the launcher asked directly, as `SIPSignaling.callWaiting` asks it for a SIP device). The push sink
/// counts that call's pushes under it, not under the device's call; when the planned call drops the device stays
/// in the waiting call, which becomes its call, and no redial lands on it.
extension EmbeddedWorkerTests {
    private static let waitingScenario = """
        name: embedded-waiting
        seed: 11
        devices: 4
        load:
          - hold: { rate: 1/s, for: 2s }
        flows:
        \(answerOutsideFlow)
        mix: { incoming-1to1: 50, answer-outside: 50 }
        behavior:
          answer_after: { constant: 300ms }
          talk: { constant: 2s }
          redial_after_drop: { delay: 1s, share: 100% }
        """

    func testADeviceInAWaitingCallKeepsItsPushesAndIsNotRedialledWhenTheCallBesideItDrops() throws {
        let second: UInt64 = 1_000_000_000
        let refused = Box(false)
        let rig = try Rig(try ScenarioLoader.parse(Self.waitingScenario, file: "waiting.yaml").get()) { request in
            guard request.url.hasSuffix("/join"), !refused.value else { return nil }
            refused.value = true  // the planned call's answer: it drops with a conversation
            return 503
        }
        let registered = Box(false)
        rig.worker.registerAll(concurrency: 4) { registered.value = true }
        rig.loop.runPending()
        XCTAssertTrue(registered.value)
        let start = rig.clock.nowNanos()
        rig.loadClock.start.store(start, ordering: .relaxed)
        let drained = Box(false)
        rig.worker.start(loadStartNanos: start) { drained.value = true }
        let table = rig.worker.table
        XCTAssertTrue(rig.loop.run(until: start + 2 * second) { !table.calls.isEmpty }, "the first call started")
        let (first, call) = try XCTUnwrap(table.calls.first)
        let callee = try XCTUnwrap(call.roles["callee"])
        let waiting = try XCTUnwrap(rig.worker.launcher.takeWaitingCall(callee, uuid: "waiting-1",
                                                                         now: rig.clock.nowNanos()))
        let device = table.devices[callee].identity.index
        let calls = rig.sink.deviceCalls
        XCTAssertEqual(calls.nextPush(device, conversation: { "waiting-1" })?.call, waiting)
        XCTAssertEqual(calls.nextPush(device, conversation: { "another" })?.call, first)

        XCTAssertTrue(rig.loop.run(until: start + 60 * second) { table.calls[first] == nil }, "the planned call ended")
        XCTAssertEqual(table.devices[callee].callID, waiting, "the device is in the waiting call")
        XCTAssertEqual(calls.current(device)?.call, waiting)
        XCTAssertTrue(rig.loop.run(until: start + 120 * second) { drained.value })
        let c = rig.worker.finish().counters
        rig.target.close()
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsFailed].map { $0 >= 1 }, true, all)
        XCTAssertEqual(c[MetricName.redialsAfterDropSkipped], 1, all)
        XCTAssertNil(c[MetricName.redialsAfterDropPlanned], all)
    }
}
