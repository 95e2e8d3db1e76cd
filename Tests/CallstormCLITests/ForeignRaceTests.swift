import Checker
@testable import CallstormCLI
import Foundation
import HTTPServer
import XCTest

/// Race scenarios (`together:` with offset sweeps) against the foreign server through its mapping: its correct
/// mode shows no violation, and each of its deliberate races is found by the rule one expects.
// serial: its correct-mode test needs 2,000 conflicting pairs from 100 calls/s over 12 s, a rate the run keeps
// only with the cores to itself: beside other classes' runs it delivered 1,598.
final class ForeignRaceTests: XCTestCase {
    /// What every race run here shares: 160 races in 4 s.
    static let header = """
        load: [ { hold: { rate: 40/s, for: 4s } } ]
        behavior: { answer_after: 20ms, talk: 50ms }
        drain: 20s
        action_timeout: 5s

        """

    /// Ryan merges his call with Andre and his held call with Adam while Adam hangs up.
    static let mergeVsEnd = header + """
        mix: { merge-vs-end: 100 }
        flows:
          merge-vs-end:
            roles: [ryan, adam, andre]
            steps:
              - { name: dial-adam, role: ryan, do: start, to: [adam], conversation: first }
              - { name: ring-adam, role: adam, do: await_push, conversation: first }
              - { name: answer-adam, role: adam, do: join, conversation: first }
              - { name: hold-adam, role: ryan, do: pause, conversation: first }
              - { name: dial-andre, role: ryan, do: start, to: [andre], conversation: second }
              - { name: ring-andre, role: andre, do: await_push, conversation: second }
              - { name: answer-andre, role: andre, do: join, conversation: second }
              - { wait: talk }
              - name: clash
                offset: { sweep: [-5ms, 5ms, 1ms] }
                together:
                  - { name: merge, role: ryan, do: merge, conversation: second, with: first }
                  - { name: adam-hangs-up, role: adam, do: end, conversation: first }
              - { wait: 200ms }

        """

    /// Ryan splits Andre out of the merged group while David answers it.
    static let unmergeVsJoin = header + """
        mix: { unmerge-vs-join: 100 }
        flows:
          unmerge-vs-join:
            roles: [ryan, adam, david, andre]
            steps:
              - { name: dial-group, role: ryan, do: start, to: [adam, david], conversation: group }
              - { name: ring-adam, role: adam, do: await_push, conversation: group }
              - { name: ring-david, role: david, do: await_push, conversation: group }
              - { name: answer-adam, role: adam, do: join, conversation: group }
              - { name: hold-group, role: ryan, do: pause, conversation: group }
              - { name: dial-andre, role: ryan, do: start, to: [andre], conversation: side }
              - { name: ring-andre, role: andre, do: await_push, conversation: side }
              - { name: answer-andre, role: andre, do: join, conversation: side }
              - { name: merge, role: ryan, do: merge, conversation: group, with: side }
              - { wait: talk }
              - name: clash
                offset: { sweep: [-5ms, 5ms, 1ms] }
                together:
                  - { name: unmerge, role: ryan, do: unmerge, conversation: group, member: andre, into: split }
                  - { name: david-answers, role: david, do: join, conversation: group }
              - { wait: 200ms }

        """

    struct Found {
        var report: CheckReport
        var races: Int
        /// Planned races that never started (no idle devices).
        var dropped: Int64
        /// Replays (of 10) of the repro of `replaying` that broke it again.
        var reproduced = 0
    }

    /// Runs the race scenario against a fresh server (with `devices` instead of the example's 1,200); with
    /// `replaying`, then replays that rule's likeliest repro file 10 times against the same server, as
    /// `callstorm replay` does.
    private func race(_ flows: String, bugs: Set<ForeignCallServer.Bug>, devices: Int? = nil,
                      replaying rule: Rule? = nil) throws -> Found {
        let gatewayPort = try CustomAPIExample.freePort()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foreign-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let foreign = try ForeignServerTests.secured(gatewayPort: gatewayPort, in: dir, bugs: bugs)
        return try ForeignServerTests.serving(foreign) { port in
            let outcome = try ForeignServerTests.run(foreign, port: port, gatewayPort: gatewayPort, in: dir) {
                var head = String($0[..<$0.range(of: "\nload:")!.lowerBound])
                if rule != nil {
                    // A race call polls for what no push tells it (connected, held, merged) at every step before
                    // the clash: polled more often, each of the 10 replays below ends sooner. The clash itself is
                    // fired from a barrier, whatever the poll.
                    head = head.replacingOccurrences(of: "observe: { poll: 250ms }", with: "observe: { poll: 100ms }")
                }
                let sized = devices.map { head.replacingOccurrences(of: "devices: 1200", with: "devices: \($0)") }
                return (sized ?? head) + "\n" + flows
            }
            let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory))
            var found = Found(report: check.report, races: check.races.races,
                              dropped: outcome.result.recorder.counters["calls.dropped.no_idle_device"] ?? 0)
            guard let rule else { return found }
            guard let index = check.races.likeliestToReplay(rule, in: check.report),
                  let file = check.repros[index + 1] else {
                XCTFail("no repro for \(rule.rawValue): \(check.repros.keys.sorted())")
                return found
            }
            found.reproduced = try ReplayCommand.replay(file.path, repeat: 10, out: nil).reproduced
            return found
        }
    }

    func testCorrectModeShowsNoViolationOverTwoThousandConflictingPairs() throws {
        var pairs = 0
        for flows in [Self.mergeVsEnd, Self.unmergeVsJoin] {
            // 100 races a second for 12 s each: 2,400 planned, so that the 2,000 conflicting pairs hold with room
            // for races whose two actions did not overlap (on a loaded CI machine 1,838 of 2,000 did at 10 s).
            // A race call holds up to 4 devices for ~3 s (polls, verification), so 1,200 devices would turn
            // arrivals away.
            let found = try race(flows.replacingOccurrences(of: "rate: 40/s, for: 4s", with: "rate: 100/s, for: 12s"),
                                 bugs: [], devices: 3000)
            XCTAssertEqual(found.dropped, 0, "every planned race ran")
            XCTAssertEqual(found.report.violations, [], "\(found.report.violations.prefix(3))")
            pairs += found.races
        }
        XCTAssertGreaterThanOrEqual(pairs, 2000)
    }

    /// Of 10 replays of a repro, how many must break its rule again. A replay pins the race's offset, but the two
    /// requests still cross the loopback and the server's threads: on CI's loaded two cores a replay of the
    /// narrowest window (a merge landing just after an end) came back in 8 of 10 where a quiet machine gives
    /// 9–10 (docs/results/issue19.md measures ≥ 9 of 10 full runs per race, the acceptance figure).
    static let replayBar = 6

    func testMergeLostUpdateIsFoundByMergeUnion() throws {
        let found = try race(Self.mergeVsEnd, bugs: [.mergeLostUpdate], replaying: .mergeUnion)
        XCTAssertTrue(found.report.violations.contains { $0.rule == .mergeUnion }, "\(found.report.countsByRule)")
        XCTAssertGreaterThanOrEqual(found.reproduced, Self.replayBar)
    }

    func testMergeAcceptingAFinishedCallIsFoundByEndedStaysEnded() throws {
        let found = try race(Self.mergeVsEnd, bugs: [.mergeAcceptsFinished], replaying: .endedStaysEnded)
        XCTAssertTrue(found.report.violations.contains { $0.rule == .endedStaysEnded },
                      "\(found.report.countsByRule)")
        XCTAssertGreaterThanOrEqual(found.reproduced, Self.replayBar)
    }

    func testSplitLosingAnAnswerIsFoundByFinalViews() throws {
        let found = try race(Self.unmergeVsJoin, bugs: [.splitLosesAnswer], replaying: .finalViewsAgree)
        XCTAssertTrue(found.report.violations.contains { $0.rule == .finalViewsAgree },
                      "\(found.report.countsByRule)")
        XCTAssertGreaterThanOrEqual(found.reproduced, Self.replayBar)
    }
}
