@testable import Driver
import Metrics
import XCTest

/// The other direction (acceptance 4): an outside caller hangs up while the device it called still rings. Both sides
/// agree nothing connected: the device's call is missed, not failed, and the run did not "do nothing" for it alone.
final class SIPOutsideCancelTests: XCTestCase {
    func testAnOutsideCallerCancellingWhileTheDeviceRingsIsAMissedCallNotAServerFailure() throws {
        let yaml = """
            name: sip-outside-cancel
            seed: 32
            devices: 2
            workers: 1
            duration: 3s
            target: { sip: { registrar: "127.0.0.1:5060" } }
            push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
            device: { signaling: sip, transport: udp }
            flows:
              answer-outside:
                roles: [caller, callee]
                outside: [caller]
                steps:
                  - { name: ring, role: callee, do: await_push }
                  - { wait: answer_after }
                  - { name: answer, role: callee, do: join }
                  - { wait: talk }
                  - { name: hangup, role: callee, do: end }
            mix: { answer-outside: 100 }
            behavior:
              answer_after: { constant: 2s }
              talk: { constant: 200ms }
            drain: 10s
            action_timeout: 5s

            """
        let rig = try SIPRig(yaml, history: true)
        rig.registerAll()
        rig.start()
        let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
        let callID = sipp.call("dev-0")
        rig.loop.run(until: rig.clock.nowNanos() + 500_000_000) { false }
        var cancelled = false
        sipp.pool.perform(sipp.agent) { cancelled = $0.cancel(callID, now: $1) }
        XCTAssertTrue(cancelled, "the outside caller's INVITE still rang")
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained }, "drained")
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], 1, all)
        XCTAssertEqual(c[MetricName.callsMissed], 1, "the caller gave up: a missed call: \(all)")
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["events.ended.unanswered"], 1, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        XCTAssertEqual(sipp.counters.responsesReceived[487], 1)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        XCTAssertTrue(check.lines.contains { $0.contains("\"type\":\"dialog\"") && $0.contains("\"cancelled\"") },
                      "the device's dialog ended cancelled")
    }
}
