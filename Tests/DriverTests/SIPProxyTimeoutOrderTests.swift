@testable import Driver
import Metrics
import SIPEmbedded
import XCTest

/// The proxy gives up on a call that rings too long (fr_inv_timer, 30 s on the twin as on Kamailio): it answers
/// the caller 408 and CANCELs the callee's branch at the same moment, so the callee can see its call end before
/// the caller hears why. The caller did not hang up: the call is a failure, never a call its caller abandoned
/// (issue 32's review: the callee-first order used to count it missed and spare the run's "nothing connected").
/// Held long enough, the 408 comes after the call was judged, so the failure is the callee's answer on an ended
/// call, not yet the status.
final class SIPProxyTimeoutOrderTests: XCTestCase {
    private let proxyPort = 5060

    private static func ringsForever() -> String {
        SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false, answerAfter: "{ constant: 40s }",
                        actionTimeout: "60s")
            .replacingOccurrences(of: "drain: 15s", with: "drain: 60s")
    }

    func testAProxyTimeoutWhoseCancelReachesTheCalleeBeforeThe408ReachesTheCallerIsAFailedCallNotAnAbandonedOne() throws {
        let rig = try SIPRaceTests.rig(Self.ringsForever())
        rig.network.hold = { [proxyPort] in $0.label == "408" && $0.from.port == proxyPort }
        rig.registerAll()
        rig.start()
        let network = rig.network
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 45 * SIPRig.second) {
            network.delivered.contains { [proxyPort] in $0.label == "CANCEL" && $0.from.port == proxyPort }
        }, "the proxy CANCELled the callee's branch")
        // The callee has seen its call end unanswered, and its answer (due at 40 s) fails on the ended call, before
        // the caller hears the 408: held 15 s more.
        _ = rig.loop.run(until: rig.clock.nowNanos() + 15 * SIPRig.second) { false }
        XCTAssertGreaterThan(network.release { _ in true }, 0, "the 408 was held")
        network.hold = nil
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsFailed], 1, all)
        XCTAssertNil(c[MetricName.callsMissed], all)
        XCTAssertNil(c["calls.missed_abandoned"], all)
        // The order the test is for: the callee's answer failed on the ended call before the 408 came.
        XCTAssertEqual(c["action.join.failed.conversation_ended"], 1, all)
        XCTAssertEqual(c["events.ended.unanswered"], 1, all)
    }
}
