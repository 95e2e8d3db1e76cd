@testable import Driver
import Metrics
import XCTest

/// The driver's callee with several SIP devices (issue 36) on the embedded loop under the manual clock, through
/// the real users model (`users: { devices: 2 }`) and the twin's forking routes (WITH_FORK): the caller dials the
/// callee user's address of record, the twin forks to both of the user's devices, the one the driver chose
/// answers and the other is CANCELled with `Reason: SIP;cause=200` and ends `joinedElsewhere`.
final class SIPUsersForkTests: XCTestCase {
    static func scenario(sleep: String, flow: String = "incoming-1to1") -> String {
        """
            name: sip-users-fork
            seed: 36
            devices: 4
            workers: 1
            users: { devices: 2, ringing_grace: 1s }
            target: { sip: { registrar: "127.0.0.1:5060" } }
            push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
            device: { signaling: sip, transport: udp, sleep: \(sleep) }
            load: [ { hold: { rate: 1/s, for: 1s } } ]
            mix: { \(flow): 100 }
            behavior:
              answer_after: { constant: 300ms }
              talk: { constant: 2s }
            drain: 10s
            action_timeout: 5s

            """
    }

    func testOneDeviceOfTheCalleeUserAnswersAndTheOtherEndsJoinedElsewhere() throws {
        let rig = try SIPRig(Self.scenario(sleep: "false"), history: true, fork: true)
        rig.registerAll()
        XCTAssertEqual(rig.proxy.bindings(of: "user-0").count, 2, "both devices of user-0 registered its AOR")
        XCTAssertEqual(rig.proxy.bindings(of: "user-2").count, 2, "both devices of user-2 registered its AOR")
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained }, "drained")
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["calls.completed"], 1, all)
        XCTAssertEqual(c["events.ended.joinedElsewhere"], 1, all)
        XCTAssertEqual(c["sip.forks.elsewhere_200"], 1, all)
        XCTAssertEqual(recorder.histograms[MetricName.elsewhereEndDelay]?.totalCount, 1, all)
        XCTAssertNil(c[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c[MetricName.elsewhereOutgoingRang], all)
        XCTAssertNil(c["handles.caller_missing"], "the caller's handle read from its user's AOR: \(all)")
        let dialogs = try rig.history("dialog")
        let confirmed = Set(dialogs.filter { $0.contains("\"confirmed\"") }.compactMap(Self.device))
        let elsewhere = dialogs.filter { $0.contains("\"joined_elsewhere\"") }.compactMap(Self.device)
        XCTAssertEqual(confirmed.count, 2, "the caller and exactly one callee device: \(dialogs)")
        XCTAssertEqual(elsewhere.count, 1, "\(dialogs)")
        XCTAssertTrue(confirmed.isDisjoint(with: elsewhere), "\(dialogs)")
        XCTAssertTrue(dialogs.allSatisfy { $0.contains("\"user\":\"user-") }, "dialog lines name the user: \(dialogs)")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }

    /// Both of the callee user's devices sleep: the twin pushes each (a push and a park per binding), both wake
    /// and ring, the one the driver chose answers, the other ends `joinedElsewhere`; the checker finds nothing.
    func testSleepingDevicesOfOneUserAreEachPushedAndTheOneNotAnsweringEndsJoinedElsewhere() throws {
        let rig = try SIPRig(Self.scenario(sleep: "true"), history: true, fork: true)
        rig.registerAll()
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained }, "drained")
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["calls.completed"], 1, all)
        XCTAssertEqual(c["pushes.received.voip"], 2, "one VoIP push per sleeping device of the callee: \(all)")
        XCTAssertEqual(c["events.ended.joinedElsewhere"], 1, all)
        XCTAssertEqual(recorder.histograms[MetricName.elsewhereEndDelay]?.totalCount, 1, all)
        XCTAssertNil(c[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }

    /// `sleep: 50%`: each device's own seeded draw, the same every time; some sleep and some not.
    func testASleepShareDrawsEachDeviceOnce() throws {
        let rig = try SIPRig(Self.scenario(sleep: "50%"), fork: true)
        let spec = try XCTUnwrap(rig.settings.scenario.device.sip)
        XCTAssertEqual(spec.sleepShare, 0.5)
        let draws = (0..<200).map { spec.sleeps(index: $0, seed: 36) }
        XCTAssertEqual(draws, (0..<200).map { spec.sleeps(index: $0, seed: 36) })
        XCTAssertGreaterThan(draws.filter { $0 }.count, 70)
        XCTAssertGreaterThan(draws.filter { !$0 }.count, 70)
    }

    private static func device(_ line: String) -> String? {
        guard let start = line.range(of: "\"device\":\"")?.upperBound,
              let end = line[start...].firstIndex(of: "\"") else { return nil }
        return String(line[start..<end])
    }
}
