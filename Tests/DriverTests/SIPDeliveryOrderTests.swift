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

    /// The caller hangs up 5 ms after the callee answers (its 200 already in): the ACK the proxy forwards is held
    /// until the BYE reached the callee (RFC 3261 allows the UAS that order; Kamailio's UDP workers produce it).
    /// Pinned as callstorm judges it today, which issue 32 changes: the callee's dialog was confirmed at its 200
    /// and both dialogs end (bye, remote_bye) with no violation, but its join, fulfilled only by the ACK, fails
    /// `already_ended` (`fail` in the history too, one word in both files), no answer-to-ACK figure is measured,
    /// and the ACK that comes after is counted received and ignored. (In a `together` step a lost race fails the
    /// action, not the flow, so the call still counts completed here; the same order in a plain flow fails it.)
    func testAByeOvertakingItsAckEndsBothDialogsAndFailsTheCalleesJoinAlreadyEnded() throws {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false,
                                   mix: "{ bye-before-ack: 100 }", extra: """
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
        let rig = try SIPRaceTests.rig(yaml)
        rig.network.hold = { [proxyPort] in $0.label == "ACK" && $0.from.port == proxyPort }
        release(rig, after: { [proxyPort] in $0.label == "BYE" && $0.from.port == proxyPort })
        let recorder = rig.finish()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["sip.requests_sent.BYE"], 1, all)
        XCTAssertEqual(c["sip.requests_received.BYE"], 1, all)
        XCTAssertEqual(c["action.end.fulfilled"], 1, "the caller's BYE was answered 200: \(all)")
        XCTAssertEqual(c["action.join.failed.already_ended"], 1, all)
        XCTAssertNil(c["action.join.fulfilled"], all)
        XCTAssertNil(recorder.histograms[MetricName.answerToAck], all)
        XCTAssertEqual(c["sip.requests_received.ACK"], 1, "the ACK came after the BYE: \(all)")
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
        XCTAssertEqual(check.outcomes, ["callee-answers fail already_ended · caller-hangs-up ok": 1])
        let dialogs = check.lines.filter { $0.contains("\"type\":\"dialog\"") }
        XCTAssertEqual(dialogs.filter { $0.contains("\"confirmed\"") }.count, 2, "\(dialogs)")
        XCTAssertEqual(dialogs.filter { $0.contains("\"bye\"") }.count, 1, "\(dialogs)")
        XCTAssertEqual(dialogs.filter { $0.contains("\"remote_bye\"") }.count, 1, "\(dialogs)")
    }
}
