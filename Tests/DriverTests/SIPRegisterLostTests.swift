@testable import Driver
import Metrics
import XCTest

/// Faults that keep a woken device from the call (what SIPChaosRunTests pins through Kamailio): its wake REGISTER
/// and every retransmission vanish (`sip.register_lost`), or the push never reaches the phone (`push.dropped`).
/// The parked INVITE times out at the proxy (408 at the caller), each such call is put down to its fault, and the
/// calls after the window complete.
final class SIPRegisterLostTests: XCTestCase {
    private func run(_ fault: String) throws -> [String: Int64] {
        let yaml = SIPRig.scenario(rate: "2/s", seconds: 2, actionTimeout: "3s",
                                   extra: "faults:\n  - { name: f, at: 0s, for: 1s, \(fault) }\n")
        return try SIPRig(yaml, pushTimeout: 2_500_000_000).run().counters
    }

    func testALostWakeRegisterLeavesTheParkedInviteToTimeOutAndTheCallIsPutDownToIt() throws {
        let c = try run("sip: { lost_register: 100% }")
        let all = "\(c.sorted { $0.key < $1.key })"
        let notCompleted = (c[MetricName.callsFailed] ?? 0) + (c["calls.missed"] ?? 0)
        XCTAssertGreaterThan(notCompleted, 0, all)
        XCTAssertEqual(c[MetricName.callsStarted], 4, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 4 - notCompleted, all)
        XCTAssertGreaterThan(c[MetricName.fault("sip.register_lost")] ?? 0, 0, all)
        XCTAssertGreaterThan(c[MetricName.fault("sip.register_lost.datagrams")] ?? 0, 1,
                             "the REGISTER and its retransmissions: \(all)")
        XCTAssertEqual(c[MetricName.callsAttributed(to: "sip.register_lost")], notCompleted, all)
        XCTAssertEqual(c[MetricName.callsAttributedToFaults], notCompleted, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        XCTAssertEqual(c["sip.responses_received.408"], notCompleted, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
    }

    func testAPushThatNeverReachesThePhoneLeavesTheInviteToTimeOutAndIsPutDownToTheDrop() throws {
        let c = try run("push: { drop: 100% }")
        let all = "\(c.sorted { $0.key < $1.key })"
        let missed = c["calls.missed"] ?? 0
        XCTAssertGreaterThan(missed, 0, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 4 - missed, all)
        XCTAssertEqual(c[MetricName.callsAttributed(to: "push.dropped")], missed, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        XCTAssertEqual(c["sip.responses_received.408"], missed, "the callers' INVITEs timed out at the proxy: \(all)")
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
    }
}
