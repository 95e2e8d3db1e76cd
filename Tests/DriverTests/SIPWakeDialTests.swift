@testable import Driver
import Metrics
import SIPEmbedded
import XCTest

/// A sleeping SIP device its user dials from: it wakes, REGISTERs from a new socket, then INVITEs. Two ways that
/// dial could stay in flight for ever (found in stop 54 when the event thread ran due timers between posted
/// blocks): a deferred sleep of the device's earlier call running after the dial began parked it mid wake
/// REGISTER, and a wake REGISTER nobody answers had no timeout. Pinned on the embedded loop, under the manual clock.
final class SIPWakeDialTests: XCTestCase {
    /// One call, dev-0 dialling dev-1, both asleep; one hop 1 ms.
    private func rig() throws -> SIPRig {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, mix: "{ outgoing-1to1: 100 }")
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        return rig
    }

    /// The deferred sleep an earlier call's end posted (`AppMoment.idle`, as the call's release tells it) runs
    /// after the dial sent its wake REGISTER: the device stays awake for the REGISTER's answer, and the call goes
    /// on to complete. Every REGISTER sent is answered (one 401, then one 200 each).
    func testADeferredSleepRunningAfterTheDialsWakeRegisterWentDoesNotParkTheDevice() throws {
        let rig = try rig()
        rig.registerAll()
        var posted = false
        rig.network.hold = { [unowned rig] packet in
            // The first REGISTER after the registration phase is dev-0's wake REGISTER for its dial: the sleep an
            // earlier call of each device left is posted now, so it runs after the REGISTER went.
            if !posted, packet.label == "REGISTER" {
                posted = true
                for local in 0..<2 { rig.worker.signaling.moment(.idle, device: local) }
            }
            return false
        }
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        XCTAssertTrue(posted, "the dial sent its wake REGISTER")
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 1, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        XCTAssertEqual(c["action.start.fulfilled"], 1, all)
        // Two devices' registrations and two wakes (the caller's dial, the callee's push): each REGISTER twice.
        XCTAssertEqual(c["sip.requests_sent.REGISTER"], 8, all)
        XCTAssertEqual(c["sip.responses_received.401"], 4, all)
        XCTAssertEqual(c["sip.requests_received.INVITE"], 1, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }

    /// A dial's wake REGISTER that is never answered (every REGISTER after the registration phase vanishes): the
    /// dial fails at `action_timeout` (5 s) with its reason named (`sip_wake_register_timeout`), counted and in the
    /// history, no INVITE goes (not even once the agent gives the REGISTER up at 32 s), and the call ends.
    func testADialsWakeRegisterWithNoAnswerFailsTheDialByNameAtTheActionTimeout() throws {
        let rig = try rig()
        rig.registerAll()
        rig.network.hold = { $0.label == "REGISTER" }
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        let reason = "sip_wake_register_timeout"
        XCTAssertEqual(c[MetricName.callsStarted], 1, all)
        XCTAssertEqual(c[MetricName.callsFailed], 1, all)
        // A dial's failure leaves its effect unknown (the REGISTER may have reached the registrar): `unknown`.
        XCTAssertEqual(c["action.start.unknown.\(reason)"], 1, all)
        XCTAssertNil(c["action.start.fulfilled"], all)
        XCTAssertNil(c["sip.requests_sent.INVITE"], "the dial was given up: \(all)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        // Answered at its timeout, 5 s after the dial (the manual clock's exact time; the histogram's precision).
        let took = try XCTUnwrap(recorder.histograms[MetricName.fulfillment("start")], all)
        XCTAssertEqual(took.totalCount, 1, all)
        XCTAssertEqual(Double(took.max), 5_000_000, accuracy: 5_000, all)
        let completes = try rig.history("complete")
        XCTAssertEqual(completes.filter { $0.contains(reason) }.count, 1, "the history names why: \(completes)")
    }
}
