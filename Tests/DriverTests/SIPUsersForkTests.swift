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

    /// A sleeping device of the callee user whose wake REGISTER (after `wake_after`) comes when the call already
    /// ended (the other device declined it; a grace of 200 ms, shorter than the wake) still sends that REGISTER,
    /// as the launched app does, and the twin tells it by a background push (`declinedElsewhere`); before, the
    /// call's end dropped the pending wake and the device rang on unseen. Either way it rang past the grace
    /// (`elsewhere.ringing_after_answer`); the checker names it as ringing until told, or, without the late
    /// message (WITH_FORK_NO_LATE), as never stopping.
    /// Pushes are released one at a time in both orders; the order where the declining device's push comes first
    /// is the late case.
    func testADeviceWhoseWakeIsDueAfterTheCallEndedStillRegistersAndIsTold() throws {
        var lateCases = 0
        for order in [[0, 1], [1, 0]] {
            for told in [true, false] where try lateWake(order: order, told: told) { lateCases += 1 }
        }
        XCTAssertEqual(lateCases, 2, "one order has the declining device's push first")
    }

    /// Over SIP a decline ends the call at once, within the grace (1.5 s here): the call's completion waits the
    /// grace out, so a device woken after the decline and never told (WITH_FORK_NO_LATE) is counted
    /// `elsewhere.ringing_after_answer` as one left ringing after an answer; told at its wake (within the
    /// grace), it is not.
    func testADeviceLeftRingingAfterADeclineIsCountedOnceTheGraceRunsOut() throws {
        var lateCases = 0
        for order in [[0, 1], [1, 0]] {
            for told in [true, false] where try lateWake(order: order, told: told, gap: 300_000_000, grace: "1500ms") {
                lateCases += 1
            }
        }
        XCTAssertEqual(lateCases, 2, "one order has the declining device's push first")
    }

    /// One run of the late case (the second push `gap` after the first, `grace` for `ringing_grace`); false when
    /// the declining device's push was not the first released.
    private func lateWake(order: [Int], told: Bool, gap: UInt64 = 500_000_000, grace: String = "200ms") throws -> Bool {
        let yaml = Self.scenario(sleep: "true", flow: "declined")
            .replacingOccurrences(of: "sleep: true }", with: "sleep: true, wake_after: { constant: 1s } }")
            .replacingOccurrences(of: "ringing_grace: 1s", with: "ringing_grace: \(grace)")
        let rig = try SIPRig(yaml, history: true, fork: true, lateTold: told)
        rig.registerAll()
        rig.gateway.hold = { $0.pushType == .voip }
        rig.start()
        rig.loop.run(until: rig.clock.nowNanos() + 2 * SIPRig.second) { false }
        let held = rig.gateway.held
        XCTAssertEqual(held.count, 2, "one VoIP push per sleeping device of the callee")
        guard held.count == 2 else { return false }
        rig.gateway.hold = nil
        let identities = UserBook.identities(Array(0..<4), settings: rig.settings)
        let first = identities.first { $0.apnsToken == held[order[0]].token }?.id
        _ = rig.sink.accept(held[order[0]])
        rig.loop.run(until: rig.clock.nowNanos() + gap) { false }
        _ = rig.sink.accept(held[order[1]])
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained }, "drained")
        rig.loop.run(until: rig.clock.nowNanos() + 3 * SIPRig.second) { false }  // the late wake is due
        let recorder = rig.finish()
        let c = recorder.counters
        let decliner = try rig.history("invoke").first { $0.contains("\"step\":\"decline\"") }.flatMap(Self.device)
        guard decliner == first else { return false }
        let all = "told \(told): \(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(rig.proxy.stats.lateTold, told ? 1 : 0, all)
        XCTAssertEqual(c["pushes.received.background"], told ? 1 : nil, all)
        XCTAssertEqual(c["calls.completed"], 1, all)
        let check = try rig.check()
        if grace == "1500ms" {
            XCTAssertEqual(c[MetricName.elsewhereRingingAfterAnswer], told ? nil : 1, all)
            XCTAssertEqual(check.report.violations.map(\.rule), told ? [] : [.elsewhereStopsRinging], check.describe)
            return true
        }
        XCTAssertEqual(c[MetricName.elsewhereRingingAfterAnswer], 1, "it rang past the grace either way: \(all)")
        // Told at its wake, past the 200 ms grace: it rang until then; not told, it never stopped.
        XCTAssertEqual(check.report.violations.map(\.rule), [.elsewhereStopsRinging], check.describe)
        XCTAssertTrue(check.describe.contains(told ? "until" : "never stopped"), check.describe)
        return true
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
