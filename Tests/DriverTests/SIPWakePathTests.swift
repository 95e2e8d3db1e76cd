@testable import Driver
import Metrics
import XCTest

/// The RFC 8599 wake-up path on the embedded loop (what SIPRunTests and SIPWakeTCPRunTests pin through Kamailio):
/// a sleeping callee is pushed through the real push sink, reports the call, REGISTERs from a new socket, gets the
/// parked INVITE and takes the call; every wake figure is measured once per call, to the hop.
final class SIPWakePathTests: XCTestCase {
    private let second = SIPRig.second
    /// One hop on the twin's network.
    private let hop: UInt64 = 1_000_000

    private func wakeRun(transport: String) throws -> (Recorder, SIPRig) {
        let rig = try SIPRig(SIPRig.scenario(transport: transport), history: true)
        rig.network.latencyNanos = hop
        let recorder = rig.run()
        // The history checker judges the woken calls like any other: nothing broken.
        let check = try rig.check()
        XCTAssertGreaterThan(check.report.operations, 0)
        XCTAssertEqual(check.report.violations, [], check.describe)
        return (recorder, rig)
    }

    func testSleepingDevicesWokenByAPushReportRegisterAndTakeTheCallWithEveryWakeFigureMeasured() throws {
        let (recorder, rig) = try wakeRun(transport: "udp")
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStarted], 2, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 2, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let h = recorder.histograms
        for metric in [MetricName.pushToReport, MetricName.inviteToPush, MetricName.pushToRegister,
                       MetricName.registerToInvite, MetricName.postDialDelay, MetricName.setupTime] {
            XCTAssertEqual(h[metric]?.totalCount, 2, "one \(metric) per call: \(all)")
        }
        // The INVITE reaches the proxy in one hop and is pushed at once; the push is reported at once; the wake
        // REGISTER is challenged and answered in four hops; the parked INVITE follows the 200 at once.
        XCTAssertEqual(h[MetricName.inviteToPush]?.max, 1000)
        XCTAssertEqual(h[MetricName.pushToReport]?.max, 0)
        XCTAssertEqual(h[MetricName.pushToRegister]?.min, 4000)
        XCTAssertEqual(h[MetricName.pushToRegister]?.max, 4000)
        XCTAssertEqual(h[MetricName.registerToInvite]?.max, 0)
        XCTAssertNil(c[MetricName.pushDeadlineMissed], all)
        // The push names the caller by its address of record, the SIP device's handle: checked, no defect.
        XCTAssertEqual(c[MetricName.callerHandlesChecked], 2, all)
        XCTAssertTrue(c.keys.filter { $0.hasPrefix("handles.caller_") && $0 != MetricName.callerHandlesChecked }
            .isEmpty, all)
        XCTAssertEqual(c["sip.requests_received.INVITE"], 2, "each callee got its INVITE once: \(all)")
        XCTAssertEqual(rig.proxy.stats.pushes, 2)
        XCTAssertEqual(rig.proxy.stats.woken, 2)
        XCTAssertNil(c["sip.misdirected.INVITE"], "the stale contacts' ports were free: \(all)")
    }

    /// Over TCP the sleeping device's connection is gone: the INVITE is suspended, not relayed to it (no 477),
    /// and continued by the wake REGISTER on the new connection; nothing is retransmitted over TCP.
    func testOverTCPTheWakeRegisterOnANewConnectionContinuesTheSuspendedInviteWithNo477() throws {
        let (recorder, _) = try wakeRun(transport: "tcp")
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], 2, all)
        XCTAssertNil(c["sip.responses_received.477"], all)
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], all)
        XCTAssertEqual(recorder.histograms[MetricName.registerToInvite]?.totalCount, 2, all)
    }

    /// On a connection `push_to_register` splits into its parts, which add up to it: the push reported → the
    /// connection up (the app's `wake_after` inside; a connection in memory is up the instant it is opened), → the
    /// handshake (the WebSocket Upgrade; none over TCP), → the wake REGISTER answered (four hops: challenged,
    /// answered). Over UDP there is no connection and no parts.
    func testOnAConnectionTheWakeUpPathSplitsIntoConnectHandshakeAndRegisterWhichAddUp() throws {
        let parts = [MetricName.wakeConnect, MetricName.wakeHandshake, MetricName.wakeRegister]
        for transport in ["udp", "tcp", "ws", "wss"] {
            let (recorder, _) = try wakeRun(transport: "\(transport), wake_after: { constant: 10ms }")
            let h = recorder.histograms
            let all = "\(transport): \(h.keys.sorted())"
            XCTAssertEqual(h[MetricName.pushToRegister]?.totalCount, 2, all)
            XCTAssertEqual(h[MetricName.pushToRegister]?.max, 14_000, all)
            guard transport != "udp" else {
                for part in parts { XCTAssertNil(h[part], all) }
                continue
            }
            XCTAssertEqual(h[MetricName.wakeConnect]?.totalCount, 2, all)
            XCTAssertEqual(h[MetricName.wakeConnect]?.max, 10_000, "the app's wake_after, then connected: \(all)")
            XCTAssertEqual(h[MetricName.wakeRegister]?.totalCount, 2, all)
            XCTAssertEqual(h[MetricName.wakeRegister]?.max, 4000, all)
            XCTAssertEqual(h[MetricName.wakeHandshake]?.totalCount, transport == "tcp" ? nil : 2, all)
            XCTAssertEqual(recorder.counters[MetricName.callsCompleted], 2, all)
        }
    }

    /// The stale contact's port handed to the next socket opened: the relayed INVITE reaches another device, which
    /// leaves it unanswered (counted misdirected), and the woken callee still takes its call.
    func testAStaleContactsPortNowHeldByAnotherDeviceLeavesTheInviteUnansweredThereAndTheCallCompletes() throws {
        let rig = try SIPRig(SIPRig.scenario(), reusePorts: true)
        let c = rig.run().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], 2, all)
        XCTAssertGreaterThan(c["sip.misdirected.INVITE"] ?? 0, 0, all)
        XCTAssertNil(c["sip.responses_sent.486"], "the misdirected INVITE was not refused: \(all)")
    }
}
