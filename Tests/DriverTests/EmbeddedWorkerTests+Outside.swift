@testable import Driver
import HTTPServer
import Metrics
import ReferenceTarget
import Scenario
import XCTest

/// Outside callers (`OutsideCalls`) on the real worker under the manual clock: calls started on the in-memory
/// reference target by a caller device the test registers (not one of the worker's) are taken by idle devices and
/// run the outside-started flow; the worker drains only once the window closed; a call after it is refused.
extension EmbeddedWorkerTests {
    /// An outside-started flow: the callee rings, answers, talks and hangs up (`flows:` text).
    static let answerOutsideFlow = """
          answer-outside:
            roles: [caller, callee]
            outside: [caller]
            steps:
              - { name: ring, role: callee, do: await_push }
              - { wait: answer_after }
              - { name: answer, role: callee, do: join }
              - { wait: talk }
              - { name: hangup, role: callee, do: end }
        """

    private static let outsideScenario = """
        name: embedded-outside
        seed: 11
        devices: 4
        duration: 10s
        flows:
        \(answerOutsideFlow)
        mix: { answer-outside: 100 }
        behavior: { answer_after: { constant: 300ms }, talk: { constant: 2s } }
        """

    /// The outside party's request to the target, straight into its handler.
    private func post(_ target: ReferenceTarget, _ path: String, _ body: String) -> Int {
        let status = Box(0)
        target.handle(HTTPRequest(method: "POST", path: path, headers: [], body: Array(body.utf8))) {
            status.value = $0.status
        }
        return status.value
    }

    private func call(_ target: ReferenceTarget, device index: Int) -> Int {
        post(target, "/v1/conversations", """
            {"caller": "gateway", "handles": [{"kind": "phoneNumber", "value": "+1555000000\(index)",
             "displayName": "Device \(index)"}]}
            """)
    }

    func testCallsAnOutsidePartyStartsAreTakenUntilTheWindowClosesAndNoneIsPlanned() throws {
        let second: UInt64 = 1_000_000_000
        let rig = try Rig(try ScenarioLoader.parse(Self.outsideScenario, file: "outside.yaml").get())
        let registered = Box(false)
        rig.worker.registerAll(concurrency: 4) { registered.value = true }
        rig.loop.runPending()
        XCTAssertTrue(registered.value)
        XCTAssertEqual(post(rig.target, "/v1/devices", """
            {"id": "gateway", "handle": {"kind": "phoneNumber", "value": "+15559990000", "displayName": "Gateway"},
             "apnsToken": "\(String(repeating: "ab", count: 32))"}
            """), 201)
        let start = rig.clock.nowNanos()
        rig.loadClock.start.store(start, ordering: .relaxed)
        let drained = Box(false)
        rig.worker.start(loadStartNanos: start) { drained.value = true }
        XCTAssertEqual(call(rig.target, device: 0), 201)
        XCTAssertEqual(call(rig.target, device: 2), 201)
        XCTAssertTrue(rig.loop.run(until: start + 60 * second) { drained.value })
        XCTAssertGreaterThanOrEqual(rig.clock.nowNanos(), start + 10 * second, "drained only once the window closed")
        // After the window: the push is still reported (PushKit's rule), but no call is taken.
        XCTAssertEqual(call(rig.target, device: 1), 201)
        rig.loop.runPending()
        let c = rig.worker.finish().counters
        rig.target.close()
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], 2, all)
        XCTAssertEqual(c[MetricName.callsStarted], 2, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 2, all)
        XCTAssertNil(c[MetricName.callsPlanned], all)
        XCTAssertEqual(c[MetricName.callsOutsideRefused("after_window")], 1, all)
        XCTAssertEqual(c["action.join.fulfilled"], 2, all)
        XCTAssertEqual(c["action.end.fulfilled"], 2, all)
        XCTAssertNil(c["action.start.started"], all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
    }
}
