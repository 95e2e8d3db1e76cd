@testable import CallstormCLI
import Checker
import Foundation
import Scenario
import XCTest

/// repro-<n>.yaml keeps the run's scenario as written and replaces only what picks the calls to run.
final class ReproFileTests: XCTestCase {
    private let original = """
        # a race
        name: race
        seed: 5
        devices: 300
        target: { embedded: true, bugs: [merge-lost-update] }
        load:
          - hold: { rate: 40/s, for: 10s }
        # comment inside the entries
        duration: 3s
        workers: 2
        behavior:
          answer_after: 20ms
          talk: 50ms
        mix: { clash: 100 }
        flows:
          clash:
            roles: [a, b]
            steps:
              - { name: dial, role: a, do: start, to: [b] }
              - { name: ring, role: b, do: await_push }
              - { name: answer, role: b, do: join }
              - name: both-end
                offset: { sweep: [-2ms, 2ms, 1ms] }
                together:
                  - { name: a-ends, role: a, do: end }
                  - { name: b-ends, role: b, do: end }
        replay: { call: 1 }

        """

    func testReproLoadsAndPinsCallSeedOffsetAndBugs() throws {
        let scenario = try ScenarioLoader.parse(original, file: "race.yaml").get()
        let violation = Violation(rule: .endedStaysEnded, conversations: ["c"], ops: [4], devices: ["dev-1"],
                                  message: "came back", window: 1...2, events: [0])
        let text = try XCTUnwrap(ReproFile.text(
            scenarioText: original, scenario: scenario, seed: 77, violation: violation, number: 3,
            origin: .init(call: 42, race: "clash/both-end", offset: -2_000_000),
            runDirectory: URL(fileURLWithPath: "/runs/r1")))
        let repro = try ScenarioLoader.parse(text, file: "repro-3.yaml").get()
        XCTAssertEqual(repro.replay, Replay(call: 42, offsetNanos: -2_000_000, rule: "ended-conversation-never-reappears",
                                            from: "/runs/r1#3"))
        XCTAssertEqual(repro.name, "race-repro-3")
        XCTAssertEqual(repro.seed, 77)
        XCTAssertEqual(repro.devices, 2)
        XCTAssertEqual(repro.workers, 1)
        XCTAssertNil(repro.duration)
        XCTAssertEqual(repro.targetBugs, ["merge-lost-update"])
        XCTAssertEqual(repro.flows["clash"], scenario.flows["clash"])
        XCTAssertEqual(repro.behavior, scenario.behavior)
        XCTAssertTrue(text.contains("callstorm replay repro-3.yaml --repeat 10"))
        XCTAssertEqual(text.components(separatedBy: "\nname:").count, 2, text)
    }

    func testViolationWithoutACallGetsNoRepro() throws {
        let scenario = try ScenarioLoader.parse(original, file: "race.yaml").get()
        let violation = Violation(rule: .oneOutcome, conversations: [], ops: [9], devices: [], message: "x",
                                  window: 1...1, events: [0])
        XCTAssertNil(ReproFile.text(scenarioText: original, scenario: scenario, seed: 1, violation: violation,
                                    number: 1, origin: .init(call: nil, race: nil, offset: nil),
                                    runDirectory: URL(fileURLWithPath: "/r")))
    }

    /// An outside party placed the call (docs/SIP.md, "Outside parties"): callstorm cannot place it again.
    func testViolationOnAnOutsidePartysCallGetsNoRepro() throws {
        let scenario = try ScenarioLoader.parse(original, file: "race.yaml").get()
        let violation = Violation(rule: .endedStaysEnded, conversations: ["c"], ops: [4], devices: ["dev-1"],
                                  message: "came back", window: 1...2, events: [0])
        XCTAssertNil(ReproFile.text(scenarioText: original, scenario: scenario, seed: 1, violation: violation,
                                    number: 1, origin: .init(call: 1 << 42 | 3, race: nil, offset: nil),
                                    runDirectory: URL(fileURLWithPath: "/r")))
    }
}
