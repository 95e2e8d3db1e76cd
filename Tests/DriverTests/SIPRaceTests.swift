import Checker
@testable import Driver
import Foundation
import Metrics
import XCTest

/// The SIP races of Scenarios/sip/race-*.yaml on the embedded loop (what SIPRaceRunTests pins through Kamailio):
/// the example runs as written against the twin, one hop taking 1 ms, so each offset of its sweep decides the
/// order as the clock says; the checker judges the history the worker wrote, as `callstorm run` does. Every
/// outcome RFC 3261 allows passes and is counted by outcome, every call completes, and the same history with one
/// end's BYE taken out (a dialog left confirmed at one end) is a violation.
final class SIPRaceTests: XCTestCase {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    /// The example `name` with each `edits` pair replaced (each must be found).
    static func example(_ name: String, _ edits: [(String, String)] = [],
                        file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var text = try String(contentsOf: examples.appendingPathComponent("\(name).yaml"), encoding: .utf8)
        for (old, new) in edits {
            XCTAssertTrue(text.contains(old), "\(name).yaml has no \(old)", file: file, line: line)
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// Runs the rig's scenario to its end, checks its history, and hands back the check and the counters: every
    /// call completed, no violation, one race per call, each race counted by its outcome.
    static func race(_ rig: SIPRig, file: StaticString = #filePath,
                     line: UInt = #line) throws -> (SIPRig.Check, [String: Int64]) {
        let c = rig.run(file: file, line: line).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertGreaterThan(c[MetricName.callsStarted] ?? 0, 0, all, file: file, line: line)
        XCTAssertEqual(c[MetricName.callsCompleted], c[MetricName.callsStarted], all, file: file, line: line)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe, file: file, line: line)
        XCTAssertGreaterThan(check.report.operations, 0, file: file, line: line)
        XCTAssertEqual(check.races.races, Int(c[MetricName.callsStarted] ?? -1), "one race per call",
                       file: file, line: line)
        XCTAssertEqual(check.outcomes.values.reduce(0, +), check.races.races, "\(check.outcomes)",
                       file: file, line: line)
        return (check, c)
    }

    /// A race example's rig: one hop 1 ms, the history kept.
    static func rig(_ yaml: String, pushTimeout: UInt64? = 10 * SIPRig.second,
                    hop: UInt64 = 1_000_000) throws -> SIPRig {
        let rig = try SIPRig(yaml, pushTimeout: pushTimeout, history: true)
        rig.network.latencyNanos = hop
        return rig
    }

    func testCancelRacingTheAnswerEndsLegallyInEitherOrderAndIsCountedByOutcome() throws {
        let (check, c) = try Self.race(Self.rig(Self.example("race-cancel-answer")))
        let counted = check.outcomes
        // Whichever won, the caller's end was fulfilled (by the 487, or by the BYE after the crossing 200).
        XCTAssertTrue(counted.keys.allSatisfy { $0.contains("caller-cancels ok") }, "\(counted)")
        // The sweep's offsets give both orders: the 200 first (the caller ACKs and says BYE) and the CANCEL first
        // (487 at the caller, the callee's answer finds the call gone).
        XCTAssertEqual(Set(counted.keys), ["callee-answers ok · caller-cancels ok",
                                           "callee-answers fail already_ended · caller-cancels ok"], "\(counted)")
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["sip.responses_received.487"], Int64(counted["callee-answers fail already_ended · "
            + "caller-cancels ok"] ?? -1), all)
        XCTAssertEqual(c["sip.requests_sent.BYE"], c["action.join.fulfilled"], "each answered call ended by BYE: \(all)")
        // Some 200s crossed their CANCEL: a CANCEL sent whose INVITE was answered 200, not 487, and some of those
        // CANCELs reached a callee that had already answered (200 to the CANCEL, no 487: §9.2).
        XCTAssertGreaterThan(c["sip.requests_sent.CANCEL"] ?? 0, c["sip.responses_received.487"] ?? 0, all)
        XCTAssertGreaterThan(c["sip.requests_received.CANCEL"] ?? 0, c["sip.responses_sent.487"] ?? 0, all)
        let (planted, callID) = try XCTUnwrap(SIPRig.withoutOneEnd(check.lines, reason: "remote_bye"))
        // The 200 won and the callee never heard the caller's BYE: its dialog is left confirmed.
        XCTAssertTrue(planted.violations.contains { $0.rule == .finalViewsAgree && $0.conversations == [callID] },
                      "\(planted.violations)")
    }

    func testByeRacingAReinviteEndsBothDialogsInEveryOrderAndIsCountedByOutcome() throws {
        let (check, c) = try Self.race(Self.rig(Self.example("race-bye-reinvite")))
        let counted = check.outcomes
        XCTAssertTrue(counted.keys.allSatisfy { $0.contains("caller-hangs-up ok") }, "\(counted)")
        // The hold answered 200 before the BYE, or the BYE first (the hold never sent, or its re-INVITE refused 481
        // by a caller whose session was over, §15, the BYE reaching the callee before that 481 did).
        XCTAssertEqual(Set(counted.keys), ["callee-holds ok · caller-hangs-up ok",
                                           "callee-holds fail already_ended · caller-hangs-up ok"], "\(counted)")
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertGreaterThan(c["sip.responses_sent.481"] ?? 0, 0, all)
        XCTAssertEqual(c["sip.responses_received.481"], c["sip.responses_sent.481"], all)
        XCTAssertEqual(c["sip.requests_received.BYE"], c[MetricName.callsStarted], all)
        let (planted, callID) = try XCTUnwrap(SIPRig.withoutOneEnd(check.lines, reason: "remote_bye"))
        // (The device, its dialog never ended, may also be named for its next call: two unheld dialogs.)
        XCTAssertTrue(planted.violations.contains { $0.rule == .finalViewsAgree && $0.conversations == [callID] },
                      "\(planted.violations)")
    }

    /// On the wake-up path (race-answer-before-invite.yaml: sleeping devices, a 1.5 s push timeout, the wake
    /// REGISTER 0–3 ms after the report): every answer, given before its INVITE, waits for it, and whichever of
    /// the wake REGISTER's INVITE and the CANCEL came first, the race ends legally. A hop takes 300 µs here, a
    /// fraction of a millisecond as on the loopback: with 1 ms hops the wake REGISTER's four hops and the INVITE's
    /// one always lose to the CANCEL's one, and only one order would be pinned. (250 µs, the timer wheel's tick,
    /// pinned this order only while every timer fired at its tick's end; with timers at their exact deadlines
    /// one of the sweep's answers came after its INVITE.)
    func testAnAnswerBeforeTheInviteRacingTheCancelOnTheWakePathEndsLegallyAndIsCounted() throws {
        let yaml = try Self.example("race-answer-before-invite", [
            ("target: { sip: { kamailio: { push: true, push_timeout: 1500ms } } }",
             "target: { sip: { registrar: \"127.0.0.1:5060\" } }"),
        ])
        let (check, c) = try Self.race(Self.rig(yaml, pushTimeout: 1_500_000_000, hop: 300_000))
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertGreaterThan(c[MetricName.answerBeforeInvite] ?? 0, 0, "the answers waited for the INVITE: \(all)")
        XCTAssertEqual(c[MetricName.answerBeforeInvite], c["action.join.started"], "every answer waited: \(all)")
        // The answer wins (its INVITE came first: the 200, the ACK, the caller's BYE) or the CANCEL does (487 at
        // the caller; the held answer is answered by its timeout, `info`).
        let counted = check.outcomes
        XCTAssertEqual(Set(counted.keys), ["callee-answers ok · caller-cancels ok",
                                           "callee-answers info · caller-cancels ok"], "\(counted)")
        // Each 487 is a call the CANCEL won at the caller: the held answer never went (`info`), or its 200 went
        // after the twin had ended the parked INVITE 487 (the join is fulfilled at that 2xx, §12.1.1: `ok`). The
        // twin forwards that 2xx (RFC 6026), and the caller, kept awake for it, ACKs it and ends it with a BYE
        // (§9.1, §15): both ends wrote `confirmed` and then `terminated`, so the checker (run by `race`) finds no
        // dialog left confirmed at one end. (Before, the caller had gone back to sleep and the callee's dialog
        // waited for an ACK that never came.)
        let dialogs = check.lines.filter { $0.contains("\"type\":\"dialog\"") || $0.contains("\"487 INVITE\"") }
        let byCall = Dictionary(grouping: dialogs) {
            $0.components(separatedBy: "\"conversation\":\"")[1].prefix { $0 != "\"" }
        }
        let late = byCall.values.filter { lines in
            lines.contains { $0.contains("\"487 INVITE\"") } && lines.contains { $0.contains("\"confirmed\"") }
        }
        XCTAssertEqual(c["sip.responses_received.487"].map(Int.init),
                       (counted["callee-answers info · caller-cancels ok"] ?? 0) + late.count, all)
        XCTAssertGreaterThan(late.count, 0, "a 2xx after the 487, in this run's order: \(all)")
        for lines in late {
            let states = lines.filter { $0.contains("\"type\":\"dialog\"") }
                .map { $0.components(separatedBy: "\"state\":\"")[1].prefix(4) }
            XCTAssertEqual(states.filter { $0 == "conf" }.count, 2, "confirmed at both ends: \(lines)")
            XCTAssertEqual(states.filter { $0 == "term" }.count, 2, "ended at both ends: \(lines)")
        }
        // In some calls the CANCEL reached the parked INVITE before the wake REGISTER did: that callee never got it.
        XCTAssertLessThan(c["sip.requests_received.INVITE"] ?? 0, c[MetricName.callsStarted] ?? 0, all)
    }
}
