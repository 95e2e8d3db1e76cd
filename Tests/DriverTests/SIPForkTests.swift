@testable import Driver
import Metrics
import XCTest

/// A device of callstorm's whose address of record another device also registered (the twin's forking routes,
/// WITH_FORK): the other device answers first, the proxy CANCELs this one with RFC 3326 `Reason: SIP;cause=200`,
/// and the device's conversation ends `joinedElsewhere`, its dialog line `joined_elsewhere`. Until the scenario
/// has users with several devices, the second device is an outside agent registered under the device's user.
final class SIPForkTests: XCTestCase {
    static func scenario(sleep: Bool) -> String {
        """
            name: sip-fork
            seed: 36
            devices: 2
            workers: 1
            duration: 3s
            target: { sip: { registrar: "127.0.0.1:5060" } }
            push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
            device: { signaling: sip, transport: udp, sleep: \(sleep) }
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
              answer_after: { constant: 2s }
              talk: { constant: 200ms }
            drain: 10s
            action_timeout: 5s

            """
    }

    func testACancelSayingTheCallWasAnsweredElsewhereEndsTheConversationJoinedElsewhere() throws {
        let rig = try SIPRig(Self.scenario(sleep: false), history: true, fork: true)
        rig.registerAll()
        rig.start()
        let other = SIPRig.OutsideParty(rig: rig, user: "dev-0", registers: true)
        XCTAssertEqual(rig.proxy.bindings(of: "dev-0").count, 2, "the device's binding and the other device's")
        let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
        let callID = sipp.call("dev-0")
        rig.loop.run(until: rig.clock.nowNanos() + 500_000_000) { false }
        var answered = false
        other.pool.perform(other.agent) { answered = $0.answer(callID, now: $1) }
        XCTAssertTrue(answered, "the other device rang too")
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained }, "drained")
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["events.ended.joinedElsewhere"], 1, all)
        XCTAssertEqual(c["sip.forks.elsewhere_200"], 1, all)
        XCTAssertEqual(sipp.counters.responsesReceived[200], 1, "the caller got the other device's answer")
        let dialogs = try rig.history("dialog")
        XCTAssertTrue(dialogs.contains { $0.contains("\"joined_elsewhere\"") }, "\(dialogs)")
    }

    /// The device sleeps; the other device answers before the push wakes it (the push held until then): its wake
    /// REGISTER finds the call over and the twin tells it by a background push, so the conversation it reported
    /// ends `joinedElsewhere`; without the late message (WITH_FORK_NO_LATE) it is never told.
    func testADeviceWokenAfterTheOtherAnsweredIsToldByABackgroundPushOrNotByTheVariant() throws {
        for told in [true, false] {
            let rig = try SIPRig(Self.scenario(sleep: true), history: true, fork: true, lateTold: told)
            rig.registerAll()
            rig.start()
            let other = SIPRig.OutsideParty(rig: rig, user: "dev-0", registers: true)
            rig.gateway.hold = { $0.pushType == .voip }
            let sipp = SIPRig.OutsideParty(rig: rig, user: "sipp")
            let callID = sipp.call("dev-0")
            rig.loop.run(until: rig.clock.nowNanos() + 500_000_000) { false }
            other.pool.perform(other.agent) { _ = $0.answer(callID, now: $1) }
            rig.loop.run(until: rig.clock.nowNanos() + 500_000_000) { false }
            XCTAssertTrue(sipp.events[sipp.agent, default: []].contains(.answered(call: callID)))
            rig.gateway.hold = nil
            XCTAssertEqual(rig.gateway.releasePushes(), 1, "the sleeping device's VoIP push")
            rig.loop.run(until: rig.clock.nowNanos() + 20 * SIPRig.second) { rig.drained }
            let c = rig.finish().counters
            let all = "\(c.sorted { $0.key < $1.key })"
            XCTAssertEqual(rig.proxy.stats.lateTold, told ? 1 : 0, all)
            XCTAssertEqual(c["events.ended.joinedElsewhere"], told ? 1 : nil, all)
            XCTAssertNil(c["sip.requests_received.INVITE"], "no branch on a call that ended: \(all)")
        }
    }
}
