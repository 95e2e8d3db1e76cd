@testable import Driver
import Metrics
import XCTest

/// An answer the user gives the moment the push is reported, before the wake REGISTER has even left (what
/// SIPRunTests' answer-before-invite test pins through Kamailio): it waits for the INVITE, is counted, and goes
/// out when the INVITE comes.
final class SIPAnswerBeforeInviteTests: XCTestCase {
    func testAnAnswerGivenBeforeTheInviteArrivesWaitsForItIsCountedAndIsFulfilled() throws {
        let rig = try SIPRig(SIPRig.scenario(answerAfter: "{ constant: 0ms }"))
        rig.network.latencyNanos = 1_000_000
        let c = rig.run().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["action.join.started"], 2, all)
        XCTAssertEqual(c[MetricName.answerBeforeInvite], c["action.join.started"], "every answer waited: \(all)")
        XCTAssertEqual(c["action.join.fulfilled"], c["action.join.started"], all)
        XCTAssertEqual(c[MetricName.callsCompleted], 2, all)
    }

    /// The INVITE never comes (the push timeout ends it first: no wake REGISTER is answered in time): the answer
    /// held for it is answered by its action timeout, and the call is not left in flight.
    func testAnAnswerHeldForAnInviteThatNeverComesIsAnsweredByItsTimeout() throws {
        let yaml = SIPRig.scenario(rate: "1/s", seconds: 1, answerAfter: "{ constant: 0ms }", actionTimeout: "1s",
                                   extra: "faults:\n  - { name: lost, at: 0s, for: 2s, sip: { lost_register: 100% } }\n")
        let rig = try SIPRig(yaml, pushTimeout: 2 * SIPRig.second)
        let c = rig.run().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.answerBeforeInvite], 1, all)
        XCTAssertEqual(c["action.join.timed_out"], 1, all)
        XCTAssertNil(c[MetricName.callsInFlightAtStop], all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
    }
}
