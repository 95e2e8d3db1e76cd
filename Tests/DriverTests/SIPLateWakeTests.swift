@testable import Driver
import Metrics
import XCTest

/// A late wake (`sip.late_wake`) on the embedded loop (what SIPWakeTCPRunTests and SIPChaosRunTests pin through
/// Kamailio): the app reports the call on time but REGISTERs after the push timeout, so the parked INVITE ends
/// with 408, the REGISTER that comes after finds nothing, and the call is put down to the fault; a late wake
/// within the push timeout only delays the call.
final class SIPLateWakeTests: XCTestCase {
    private func lateRun(transport: String, after: String, pushTimeout: UInt64) throws -> [String: Int64] {
        let yaml = SIPRig.scenario(devices: 16, rate: "4/s", seconds: 2, transport: transport,
                                   extra: "faults:\n  - { name: slow-wake, at: 0s, for: 500ms, "
                                       + "sip: { late_wake: { after: \(after) } } }\n")
        let rig = try SIPRig(yaml, pushTimeout: pushTimeout)
        return rig.run().counters
    }

    func testAWakePastThePushTimeoutOverTCPEndsThatCallWith408PutDownToTheLateWake() throws {
        let c = try lateRun(transport: "tcp", after: "2500ms", pushTimeout: 2 * SIPRig.second)
        let all = "\(c.sorted { $0.key < $1.key })"
        let started = c[MetricName.callsStarted] ?? 0
        let late = c[MetricName.fault("sip.late_wake")] ?? 0
        XCTAssertEqual(started, 8, all)
        XCTAssertGreaterThan(late, 0, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        XCTAssertEqual(c[MetricName.callsCompleted], started - late, all)
        XCTAssertEqual(c[MetricName.callsAttributed(to: "sip.late_wake")], late, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        XCTAssertEqual(c["sip.responses_received.408"], late, all)
        XCTAssertNil(c["sip.responses_received.477"], all)
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], all)
    }

    func testAWakePastThePushTimeoutOverUDPEndsThatCallWith408PutDownToTheLateWake() throws {
        let c = try lateRun(transport: "udp", after: "3s", pushTimeout: 2_500_000_000)
        let all = "\(c.sorted { $0.key < $1.key })"
        let late = c[MetricName.fault("sip.late_wake")] ?? 0
        XCTAssertGreaterThan(late, 0, all)
        XCTAssertEqual(c[MetricName.callsCompleted], (c[MetricName.callsStarted] ?? 0) - late, all)
        XCTAssertEqual(c[MetricName.callsAttributed(to: "sip.late_wake")], late, all)
        XCTAssertEqual(c["sip.responses_received.408"], late, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
    }

    func testAWakeLateWithinThePushTimeoutOnlyDelaysTheCall() throws {
        let c = try lateRun(transport: "udp", after: "50ms", pushTimeout: 10 * SIPRig.second)
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertGreaterThan(c[MetricName.fault("sip.late_wake")] ?? 0, 0, all)
        XCTAssertEqual(c[MetricName.callsCompleted], c[MetricName.callsStarted], all)
        XCTAssertNil(c["sip.responses_received.408"], all)
    }

    /// The wake-up path's parts on both sides of the fault windows, for the report's fault table: the calls the
    /// slow-wake window hit have their own push_to_register, slower than the baseline's by the late wake.
    func testTheWakeUpFiguresAreKeptOnEachSideOfTheFaultWindows() throws {
        let yaml = SIPRig.scenario(devices: 16, rate: "4/s", seconds: 2, transport: "udp",
                                   extra: "faults:\n  - { name: slow-wake, at: 0s, for: 1s, "
                                       + "sip: { late_wake: { after: 300ms } } }\n")
        let recorder = try SIPRig(yaml, pushTimeout: 10 * SIPRig.second).run()
        let inside = try XCTUnwrap(recorder.histograms["fault.slow-wake.push_to_register"])
        let outside = try XCTUnwrap(recorder.histograms["no_fault.push_to_register"])
        XCTAssertGreaterThan(inside.totalCount, 0)
        XCTAssertGreaterThan(outside.totalCount, 0)
        XCTAssertEqual(inside.totalCount + outside.totalCount, recorder.histograms["push_to_register"]?.totalCount)
        XCTAssertGreaterThanOrEqual(inside.value(atPercentile: 50), 300_000, "the late wake's 300 ms")
        XCTAssertLessThan(outside.value(atPercentile: 50), 300_000)
        XCTAssertNotNil(recorder.histograms["no_fault.register_to_invite"])
    }
}
