@testable import Driver
import Metrics
import XCTest

/// Call waiting on the embedded loop (what SIPOutsideRunTests pins through Kamailio and SIPp): an outside party
/// dials dev-0 three times and dev-1 once, 50 ms apart, while each device talks for half a second. dev-0 takes the
/// second call beside its first, holding the first by re-INVITE (hold-and-accept), and answers the third 486 Busy
/// Here, over its limit of two conversation groups; every call it took completes.
final class SIPCallWaitingTests: XCTestCase {
    private func scenario(sleep: Bool, answerAfter: String) -> String {
        """
        name: sip-outside-waiting
        seed: 26
        devices: 2
        workers: 1
        duration: 1s
        target: { sip: { registrar: "127.0.0.1:5060" } }
        push: { listen: "127.0.0.1:2197", tls: false, deadline: 2s }
        device: { signaling: sip, sleep: \(sleep), transport: udp, max_conversation_groups: 2 }
        flows:
          answer-outside:
            roles: [caller, callee]
            outside: [caller]
            steps:
              - { name: ring, role: callee, do: await_push }
              - { wait: answer_after }
              - { name: answer, role: callee, do: join }
              - { wait: talk }
              - { name: hangup, role: callee, do: end }
        mix: { answer-outside: 100 }
        behavior:
          answer_after: \(answerAfter)
          talk: { uniform: [500ms, 600ms] }
        drain: 10s
        action_timeout: 5s

        """
    }

    /// The delivery orders a loaded machine meets (SIPOutsideRunTests under the thread sanitizer): as the twin
    /// delivers (each push before its INVITE), `pushesLate` (dev-0's waiting calls' pushes held until its 486 left:
    /// each after its INVITE, and after the refusal), `acksLate` (the ACKs of dev-0's first two calls held until
    /// both were answered: the second call confirmed before the first's ACK, so its hold re-INVITE, and that
    /// re-INVITE's answer, come after the second call's confirmation).
    struct Order: OptionSet {
        let rawValue: Int
        static let pushesLate = Order(rawValue: 1)
        static let acksLate = Order(rawValue: 2)
    }

    /// `answerAfter`: the scenario's `answer_after` (the late pushes come while dev-0's calls all still ring with
    /// `{ uniform: [150ms, 250ms] }`: its third call is refused at 100 ms).
    private func callWaiting(sleep: Bool, order: Order = [], answerAfter: String = "{ uniform: [0ms, 100ms] }")
        throws -> (SIPRig, [String: Int64], SIPRig.OutsideParty) {
        let rig = try SIPRig(scenario(sleep: sleep, answerAfter: answerAfter), history: true)
        rig.network.latencyNanos = 1_000_000
        rig.registerAll()
        rig.start()
        let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
        var ids: [String] = []
        let proxy = 5060
        if order.contains(.pushesLate) {
            // Every push but the first (the one that wakes dev-0) waits: dev-0's second and third calls'.
            rig.gateway.hold = { push in
                ids.dropFirst().prefix(2).contains { String(decoding: push.payload, as: UTF8.self).contains($0) }
            }
        }
        if order.contains(.acksLate) {
            rig.network.hold = { packet in
                packet.label == "ACK" && packet.from.port == proxy && ids.prefix(2).contains(packet.callID ?? "")
            }
        }
        for user in ["dev-0", "dev-0", "dev-0", "dev-1"] {
            ids.append(sipp.call(user))
            rig.loop.run(until: rig.clock.nowNanos() + 50_000_000) { false }
        }
        let network = rig.network
        if order.contains(.acksLate) {
            let answered = { (id: String) in
                network.delivered.contains { $0.label == "200" && $0.callID == id && $0.from.port != proxy }
            }
            XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 5 * SIPRig.second) {
                answered(ids[0]) && answered(ids[1])
            }, "dev-0 answered its first two calls")
            XCTAssertGreaterThan(network.release { _ in true }, 0, "an ACK was held")
            network.hold = nil
        }
        if order.contains(.pushesLate) {
            XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 5 * SIPRig.second) {
                network.delivered.contains { $0.label == "486" && $0.from.port != proxy }
            }, "dev-0 refused its third call")
            XCTAssertEqual(rig.gateway.releasePushes(), 2, "the waiting calls' pushes were held")
            rig.gateway.hold = nil
        }
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }, "drained")
        let counters = rig.finish().counters
        // In every order the checker finds no device active in two unheld conversations (SIPOutsideRunTests'
        // `invariant_violations == 0`): dev-0's first dialog is `held` before the second is `confirmed`.
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        let dev0 = try rig.history("dialog").filter { $0.contains("\"dev-0\"") }
        // Whichever of its first two calls dev-0 answered second holds the other, whose `held` line comes first
        // and is never followed by a `confirmed` one (its ACK, late or not, unmakes nothing).
        let held = try XCTUnwrap(dev0.firstIndex { $0.contains("\"held\"") }, "\(dev0)")
        let heldCall = try XCTUnwrap(ids.prefix(2).first { dev0[held].contains($0) })
        let newest = try XCTUnwrap(ids.prefix(2).first { $0 != heldCall })
        let confirmed = try XCTUnwrap(dev0.firstIndex { $0.contains(newest) && $0.contains("\"confirmed\"") })
        XCTAssertLessThan(held, confirmed, "\(dev0)")
        XCTAssertFalse(dev0[held...].contains { $0.contains(heldCall) && $0.contains("\"confirmed\"") },
                       "the held call stays held: \(dev0)")
        return (rig, counters, sipp)
    }

    private func assertCallWaiting(_ c: [String: Int64], _ sipp: SIPRig.OutsideParty,
                                   file: StaticString = #filePath, line: UInt = #line) {
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsStartedByOutside], 3, all, file: file, line: line)
        XCTAssertEqual(c[MetricName.callsCompleted], 3, all, file: file, line: line)
        XCTAssertEqual(c["sip.call_waiting.held"], 1, "dev-0 held its first call to take the second: \(all)",
                       file: file, line: line)
        XCTAssertEqual(c[MetricName.callsOutsideRefused("busy")], 1, all, file: file, line: line)
        XCTAssertEqual(c["conversations.refused_over_limit"], 1, all, file: file, line: line)
        XCTAssertEqual(c["conversations.reported"], 4, "each call reported once, its push or its INVITE: \(all)",
                       file: file, line: line)
        XCTAssertEqual(c["sip.responses_sent.486"], 1, all, file: file, line: line)
        XCTAssertEqual(c["sip.requests_received.INVITE"], 4, all, file: file, line: line)
        XCTAssertEqual(c["action.join.fulfilled"], 3, all, file: file, line: line)
        XCTAssertEqual(c["action.end.fulfilled"], 3, all, file: file, line: line)
        XCTAssertNil(c["pushes.unexpected"], "the busy INVITE is an outside call refused: \(all)", file: file,
                     line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        // The outside party's side, as SIPp counts it: three calls answered and ended by the device, one refused.
        XCTAssertEqual(sipp.counters.responsesReceived[486], 1, file: file, line: line)
        XCTAssertEqual(sipp.counters.requestsReceived["BYE"], 3, file: file, line: line)
    }

    func testAnAwakeDeviceHoldsItsCallToTakeAWaitingCallAndRefusesAThirdBusyHere() throws {
        let (rig, c, sipp) = try callWaiting(sleep: false)
        assertCallWaiting(c, sipp)
        XCTAssertNil(rig.finish().histograms[MetricName.pushToRegister], "no device slept")
    }

    /// Both answers before either ACK: dev-0 holds its first call at once and sends the hold re-INVITE on its
    /// ACK (RFC 3261 §14.1 allows none before), after the second call was confirmed; the first stays held.
    func testAnAwakeDeviceWhoseFirstAnswerIsAckedAfterItsSecondHoldsTheFirstOnItsAck() throws {
        let (rig, c, sipp) = try callWaiting(sleep: false, order: .acksLate)
        assertCallWaiting(c, sipp)
        XCTAssertEqual(rig.finish().histograms[MetricName.answerToAck]?.totalCount, 3)
        XCTAssertEqual(sipp.counters.requestsReceived["INVITE"], 1, "the one hold re-INVITE")
    }

    /// On the wake-up path the waiting calls' pushes reach dev-0 awake in its first call: it reports them without
    /// waking again, and their INVITEs decide as above.
    func testASleepingDeviceInACallReportsTheWaitingCallsPushAndTakesOrRefusesItAsTheModelSays() throws {
        let (rig, c, sipp) = try callWaiting(sleep: true)
        assertCallWaiting(c, sipp)
        XCTAssertEqual(rig.finish().histograms[MetricName.pushToRegister]?.totalCount, 2,
                       "dev-0 and dev-1 woke for their first calls only")
    }

    /// The waiting calls' pushes after their INVITEs (the second taken, the third refused 486 over the limit),
    /// while every call of dev-0 still rings: each names a conversation the device knows while it has another call
    /// (`VoIPPushJudge.inCall`), so its app need not report it (`voip_not_required.in_call`), and nothing is
    /// counted against the server; each call is reported once.
    func testASleepingDeviceWhoseWaitingCallsPushesComeAfterTheirInvitesBlamesNoServer() throws {
        let (_, c, sipp) = try callWaiting(sleep: true, order: .pushesLate, answerAfter: "{ uniform: [150ms, 250ms] }")
        assertCallWaiting(c, sipp)
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
        XCTAssertEqual(c["pushes.voip_not_required.in_call"], 2, all)
    }

    /// Both late orders at once on the wake-up path.
    func testASleepingDeviceWithLatePushesAndLateAcksKeepsOneActiveDialogAndBlamesNoServer() throws {
        let (_, c, sipp) = try callWaiting(sleep: true, order: [.pushesLate, .acksLate])
        assertCallWaiting(c, sipp)
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], "\(c.sorted { $0.key < $1.key })")
    }
}
