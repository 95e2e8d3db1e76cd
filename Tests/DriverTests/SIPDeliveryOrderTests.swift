import Checker
@testable import Driver
import Metrics
import SIPEmbedded
import XCTest

/// Delivery orders the end-to-end runs meet only by chance, scripted on the twin's network: a message held back
/// (`SIPNetwork.hold`) until another was delivered, then released. One call each, a hop 1 ms, the checker run
/// over the history as `callstorm run` does.
final class SIPDeliveryOrderTests: XCTestCase {
    private let proxyPort = 5060

    /// Runs until `delivered` is true of a packet delivered, then releases every held packet.
    private func release(_ rig: SIPRig, after delivered: @escaping (SIPPacket) -> Bool,
                         file: StaticString = #filePath, line: UInt = #line) {
        rig.registerAll(file: file, line: line)
        rig.start()
        let network = rig.network
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) {
            network.delivered.contains(where: delivered)
        }, "the awaited message came", file: file, line: line)
        XCTAssertGreaterThan(network.release { _ in true }, 0, "a message was held", file: file, line: line)
        network.hold = nil
        let drained = rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained }
        XCTAssertTrue(drained, "the calls drained", file: file, line: line)
    }

    /// race-bye-reinvite.yaml's one call with its two actions at once: the callee's hold re-INVITE reaches the
    /// caller after its BYE left, and the BYE is held at the proxy until the caller's 481 reached the callee.
    /// The hold fails `sip_481` (§15: the session is over), then the BYE ends the callee's dialog: an outcome
    /// RFC 3261 allows, which the sweep of SIPRaceTests never produces (the BYE always arrives first there).
    func testAReinviteReachingACallerThatAlreadySentItsByeIsRefused481AndBothDialogsEnd() throws {
        let yaml = try SIPRaceTests.example("race-bye-reinvite", [
            ("rate: 7/s, for: 2s", "rate: 1/s, for: 1s"), ("offset: { sweep: [-3ms, 3ms, 1ms] }", "offset: 0ms"),
        ])
        let rig = try SIPRaceTests.rig(yaml)
        rig.network.hold = { [proxyPort] in $0.label == "BYE" && $0.from.port == proxyPort }
        release(rig, after: { [proxyPort] in $0.label == "481" && $0.from.port == proxyPort })
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        XCTAssertEqual(c["action.pause.failed.sip_481"], 1, all)
        XCTAssertEqual(c["sip.requests_received.BYE"], 1, all)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        XCTAssertEqual(check.outcomes, ["callee-holds fail sip_481 · caller-hangs-up ok": 1])
    }

    /// One call whose caller hangs up 5 ms after its callee answers (a `together` step), two awake devices.
    private static func byeBeforeAck() -> String {
        SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false, mix: "{ bye-before-ack: 100 }", extra: """
            flows:
              bye-before-ack:
                roles: [caller, callee]
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
                  - { name: ring, role: callee, do: await_push }
                  - name: clash
                    offset: 5ms
                    together:
                      - { name: callee-answers, role: callee, do: join }
                      - { name: caller-hangs-up, role: caller, do: end }

            """)
    }

    /// The caller hangs up 5 ms after the callee answers (its 200 already in): the ACK the proxy forwards is held
    /// until the BYE reached the callee (RFC 3261 allows the UAS that order; Kamailio's UDP workers produce it).
    /// The callee's dialog was confirmed at its 200 (§12.1.1) and its join fulfilled there: the answered call
    /// ends by the caller's BYE, both dialogs end (bye, remote_bye) with no violation, the counters and the history
    /// agree on every action (issue 32: the join used to wait for the ACK and fail `already_ended`). The ACK that
    /// comes after is counted received and unmakes nothing; no answer-to-ACK figure is measured for it.
    func testAByeOvertakingItsAckEndsAnAnsweredCallWhoseJoinWasFulfilledAtTheAnswer() throws {
        let yaml = Self.byeBeforeAck()
        let rig = try SIPRaceTests.rig(yaml)
        rig.network.hold = { [proxyPort] in $0.label == "ACK" && $0.from.port == proxyPort }
        release(rig, after: { [proxyPort] in $0.label == "BYE" && $0.from.port == proxyPort })
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["sip.requests_sent.BYE"], 1, all)
        XCTAssertEqual(c["sip.requests_received.BYE"], 1, all)
        XCTAssertEqual(c["action.end.fulfilled"], 1, "the caller's BYE was answered 200: \(all)")
        XCTAssertEqual(c["action.join.fulfilled"], 1, all)
        XCTAssertNil(c["action.join.failed.already_ended"], all)
        XCTAssertNil(c["calls.failed"], all)
        XCTAssertNil(recorder.histograms[MetricName.answerToAck], all)
        XCTAssertEqual(c["sip.requests_received.ACK"], 1, "the ACK came after the BYE: \(all)")
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        XCTAssertEqual(check.outcomes, ["callee-answers ok · caller-hangs-up ok": 1])
        let dialogs = check.lines.filter { $0.contains("\"type\":\"dialog\"") }
        XCTAssertEqual(dialogs.filter { $0.contains("\"confirmed\"") }.count, 2, "\(dialogs)")
        XCTAssertEqual(dialogs.filter { $0.contains("\"bye\"") }.count, 1, "\(dialogs)")
        XCTAssertEqual(dialogs.filter { $0.contains("\"remote_bye\"") }.count, 1, "\(dialogs)")
    }

    /// The same order where the scenario asks for the ACK (`device.join_at: ack`): the join waits for an ACK the
    /// BYE overtook and fails `already_ended`, as the scenario asked; the call, a lost race in a `together` step,
    /// still completes, and the dialogs end as above.
    func testWithJoinAtAckAByeOvertakingTheAckFailsTheCalleesJoinAlreadyEnded() throws {
        let yaml = Self.byeBeforeAck().replacingOccurrences(of: "transport: udp }",
                                                            with: "transport: udp, join_at: ack }")
        XCTAssertTrue(yaml.contains("join_at: ack"), yaml)
        let rig = try SIPRaceTests.rig(yaml)
        rig.network.hold = { [proxyPort] in $0.label == "ACK" && $0.from.port == proxyPort }
        release(rig, after: { [proxyPort] in $0.label == "BYE" && $0.from.port == proxyPort })
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["action.join.failed.already_ended"], 1, all)
        XCTAssertNil(c["action.join.fulfilled"], all)
        XCTAssertEqual(c["action.end.fulfilled"], 1, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }
}
