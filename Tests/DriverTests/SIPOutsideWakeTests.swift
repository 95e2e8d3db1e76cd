@testable import Driver
import Foundation
import Metrics
import XCTest

/// Calls placed by a party callstorm does not simulate reaching sleeping devices (what SIPOutsideRunTests pins
/// with SIPp through Kamailio): Scenarios/sip/outside-caller.yaml as shipped, an outside agent (SIPp's
/// uac-many.xml) dialling dev-0…dev-19 at 20 calls/s through the twin, and half the wakes 50 ms late, a fault
/// decided per call that applies to an outside call once its push made it one of ours. Each device wakes by push,
/// reports, REGISTERs, answers and hangs up; the wake-up figures are measured on the devices' side, the outside
/// party counts its own calls, and the checker finds nothing.
final class SIPOutsideWakeTests: XCTestCase {
    private let calls = 20

    func testOutsideCallsWakeSleepingDevicesThatAnswerAndHangUpWithTheWakeFiguresMeasuredAndHalfTheWakesLate() throws {
        let yaml = try SIPRaceTests.example("outside-caller", [("duration: 6s", "duration: 4s")])
            + "faults: [ { name: late, at: 0s, for: 4s, sip: { late_wake: { probability: 50%, after: 50ms } } } ]\n"
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        rig.registerAll()
        rig.start()
        let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
        for device in 0..<calls {
            sipp.call("dev-\(device)")
            rig.loop.run(until: rig.clock.nowNanos() + 50_000_000) { false }  // -r 20
        }
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        let n = Int64(calls)
        XCTAssertEqual(c[MetricName.callsStartedByOutside], n, all)
        XCTAssertEqual(c[MetricName.callsStarted], n, all)
        XCTAssertEqual(c[MetricName.callsCompleted], n, all)
        XCTAssertNil(c[MetricName.callsPlanned], "callstorm planned none of them: \(all)")
        XCTAssertEqual(c["sip.requests_received.INVITE"], n, all)
        XCTAssertEqual(c["action.join.fulfilled"], n, all)
        XCTAssertEqual(c["action.end.fulfilled"], n, all)
        XCTAssertNil(c[MetricName.pushDeadlineMissed], all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        for metric in [MetricName.pushToReport, MetricName.pushToRegister, MetricName.registerToInvite,
                       MetricName.answerToAck, MetricName.fulfillment("join")] {
            XCTAssertEqual(recorder.histograms[metric]?.totalCount, n, "\(metric): \(all)")
        }
        XCTAssertNil(recorder.histograms[MetricName.inviteToPush], "the caller's INVITE is the outside party's")
        // The late wakes, as faults.csv lists them: about half, each naming its outside call (bit 42 set).
        let late = rig.faultLog.all.map(\.row).filter { $0.kind == "sip.late_wake" }
        XCTAssertGreaterThan(late.count, 0, all)
        XCTAssertLessThan(late.count, calls, "half of them, by the seed")
        XCTAssertEqual(c[MetricName.fault("sip.late_wake")], Int64(late.count), all)
        XCTAssertTrue(late.allSatisfy { $0.call >= 1 << 42 }, "\(late)")
        // The outside party's side, as SIPp counts it: every call answered, and ended by the device's BYE.
        XCTAssertEqual(sipp.counters.responsesReceived[200].map { $0 >= calls }, true)
        XCTAssertEqual(sipp.counters.requestsReceived["BYE"], calls)
        XCTAssertNil(sipp.counters.responsesReceived[486])
        XCTAssertNil(sipp.counters.responsesReceived[408])
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }
}
