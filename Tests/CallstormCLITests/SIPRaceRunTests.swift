@testable import CallstormCLI
import Checker
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26: SIP races scripted with `together:` (Scenarios/sip/race-*.yaml) against a real Kamailio. Every outcome
/// RFC 3261 allows is accepted by the checker and counted by outcome; the same history with one end's BYE taken
/// out (a dialog left confirmed at one end, the illegal outcome) is a violation.
final class SIPRaceRunTests: XCTestCase {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    /// Runs the example against `kamailio` (or the one it starts itself), checks its history, and hands over the
    /// check, the history's lines and the run's counters.
    private func race(_ name: String, kamailio: KamailioProcess?,
                      then: (HistoryCheck.Outcome, [String], [String: Int64]) throws -> Void) throws {
        let dir = try TemporaryDirectory.make("sip-\(name)")
        defer { TemporaryDirectory.remove(dir) }
        var text = try String(contentsOf: Self.examples.appendingPathComponent("\(name).yaml"), encoding: .utf8)
        if let kamailio { text = text.replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)") }
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c) \(kamailio?.log.suffix(1500) ?? "")")
        let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
        XCTAssertEqual(check.races.races, Int(c["calls.started"] ?? -1), "one race per call")
        let history = try String(contentsOf: outcome.runDirectory.appendingPathComponent("history.jsonl"),
                                 encoding: .utf8)
        try then(check, history.split(separator: "\n").map(String.init), c)
    }

    /// The outcomes counted for the example's one `together` step.
    private func outcomes(_ check: HistoryCheck.Outcome) -> [String: Int] {
        check.races.byPair.first?.outcomes ?? [:]
    }

    /// The history without the line that ended `device`'s dialog for one call with `reason`: that end never hung
    /// up. Nil when no call ended that way.
    private func withoutOneEnd(_ lines: [String], reason: String) throws -> (CheckReport, String)? {
        guard let cut = lines.firstIndex(where: { $0.contains("\"type\":\"dialog\"") && $0.contains("\"\(reason)\"") })
        else { return nil }
        let callID = try XCTUnwrap(lines[cut].components(separatedBy: "\"conversation\":\"").last?
            .components(separatedBy: "\"").first)
        var planted = lines
        planted.remove(at: cut)
        let events = try HistoryReader.parse(lines: planted.map { Substring($0) })
        return (HistoryChecker.check(events), callID)
    }

    func testCancelRacingTheAnswerAndByeRacingAReinviteEndLegallyAndAreCountedByOutcome() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try race("race-cancel-answer", kamailio: kamailio) { check, lines, _ in
            let counted = outcomes(check)
            XCTAssertEqual(counted.values.reduce(0, +), check.races.races, "\(counted)")
            // Whichever won, the caller's end was fulfilled (by the 487, or by the BYE after the crossing 200).
            XCTAssertTrue(counted.keys.allSatisfy { $0.contains("caller-cancels ok") }, "\(counted)")
            if let (planted, callID) = try withoutOneEnd(lines, reason: "remote_bye") {
                // The 200 won and the callee never heard the caller's BYE: its dialog is left confirmed.
                XCTAssertTrue(planted.violations.contains { $0.rule == .finalViewsAgree &&
                    $0.conversations == [callID] }, "\(planted.violations)")
            }
        }
        try race("race-bye-reinvite", kamailio: kamailio) { check, lines, _ in
            let counted = outcomes(check)
            XCTAssertEqual(counted.values.reduce(0, +), check.races.races, "\(counted)")
            XCTAssertTrue(counted.keys.allSatisfy { $0.contains("caller-hangs-up ok") }, "\(counted)")
            let (planted, callID) = try XCTUnwrap(withoutOneEnd(lines, reason: "remote_bye"))
            // (The device, its dialog never ended, may also be named for its next call: two unheld dialogs.)
            XCTAssertTrue(planted.violations.contains { $0.rule == .finalViewsAgree && $0.conversations == [callID] },
                          "\(planted.violations)")
        }
    }

    /// The example starts its own Kamailio with the push route (`target.sip.kamailio`).
    func testAnAnswerBeforeTheInviteRacingTheCancelOnTheWakePathEndsLegallyAndIsCounted() throws {
        try race("race-answer-before-invite", kamailio: nil) { check, _, c in
            let counted = outcomes(check)
            XCTAssertEqual(counted.values.reduce(0, +), check.races.races, "\(counted)")
            XCTAssertGreaterThan(c[MetricName.answerBeforeInvite] ?? 0, 0, "the answers waited for the INVITE: \(c)")
        }
    }
}
