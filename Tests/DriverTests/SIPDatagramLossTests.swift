@testable import Driver
import Metrics
import XCTest

/// SIP datagrams lost and delayed at the devices' sockets (`sip.message_lost`, `sip.message_delayed`) on the
/// embedded loop (what SIPChaosRunTests pins through Kamailio): RFC 3261's retransmissions recover the calls,
/// each loss is counted by direction and message, a request the device lost is sent again, and a call that still
/// fails is put down to the fault on its path, never to the server. A duplicated push is reported once.
final class SIPDatagramLossTests: XCTestCase {
    private let yaml = SIPRig.scenario(devices: 8, rate: "4/s", seconds: 2, actionTimeout: "10s", extra: """
        faults:
          - name: lossy-and-twice
            at: 0s
            for: 2s
            sip: { loss: 15%, delay: { uniform: [0ms, 100ms] } }
            push: { duplicate: 100% }

        """)

    func testLostDatagramsAreRetransmittedCountedByMessageAndEveryFailureIsPutDownToAFault() throws {
        let c = try SIPRig(yaml).run(limit: 300 * SIPRig.second).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let lost = c[MetricName.fault("sip.message_lost")] ?? 0
        XCTAssertGreaterThan(lost, 0, all)
        XCTAssertGreaterThan(c[MetricName.fault("sip.message_delayed")] ?? 0, 0, all)
        let byMessage = c.filter { $0.key.hasPrefix(MetricName.fault("sip.message_lost") + ".") }.values.reduce(0, +)
        XCTAssertEqual(byMessage, lost, "each loss counted once by direction and message: \(all)")
        for method in ["INVITE", "BYE", "REGISTER", "CANCEL"]
        where (c[MetricName.sipMessageFault("sip.message_lost", sending: true, label: method)] ?? 0) > 0 {
            XCTAssertGreaterThan(c["sip.retransmissions_sent.\(method)"] ?? 0, 0, "\(method): \(all)")
        }
        let notCompleted = (c[MetricName.callsFailed] ?? 0) + (c["calls.missed"] ?? 0)
        XCTAssertEqual(c[MetricName.callsAttributedToFaults] ?? 0, notCompleted, all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        // The same push twice: reported once, the copy excused by the fault.
        XCTAssertGreaterThan(c[MetricName.pushesVoIPNotRequired("fault")] ?? 0, 0, all)
        XCTAssertEqual(c["conversations.reported"], (c["pushes.accepted"] ?? 0) - (c["pushes.dropped_by_fault"] ?? 0),
                       "one report per push delivered, copies not reported again: \(all)")
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
    }

    /// The same seed loses the same datagrams: two runs give the same books.
    func testTheSameSeedLosesTheSameDatagramsRunAfterRun() throws {
        let first = try SIPRig(yaml).run(limit: 300 * SIPRig.second).counters
        let second = try SIPRig(yaml).run(limit: 300 * SIPRig.second).counters
        XCTAssertEqual(first, second)
    }
}
