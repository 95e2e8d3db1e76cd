import XCTest
@testable import Scenario

/// `replay:` (what repro-<n>.yaml files carry) runs one planned call, drawn from the streams of its original index.
final class ReplaySectionTests: XCTestCase {
    private let base = """
        name: r
        seed: 26
        devices: 3
        load:
          - hold: { rate: 10/s, for: 20s }
        behavior: { answer_after: { uniform: [100ms, 2s] }, talk: { exponential: { mean: 3s } }, hangup: random }

        """

    private func load(_ yaml: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(yaml, file: "repro.yaml")
    }

    func testReplayRunsOnlyTheNamedCallWithItsOwnDraws() throws {
        let whole = try load(base).get()
        let replayed = try load(base + "replay: { call: 137, offset: -3ms, rule: merge-yields-union, from: \"x#1\" }\n")
            .get()
        XCTAssertEqual(replayed.replay, Replay(call: 137, offsetNanos: -3_000_000, rule: "merge-yields-union",
                                               from: "x#1"))
        let original = Array(ArrivalPlan(scenario: whole))[137]
        let only = Array(ArrivalPlan(scenario: replayed))
        XCTAssertEqual(only.count, 1)
        XCTAssertEqual(only[0].index, 137)
        XCTAssertEqual(only[0].plannedNanos, 0)
        XCTAssertEqual(only[0].answerAfterNanos, original.answerAfterNanos)
        XCTAssertEqual(only[0].talkNanos, original.talkNanos)
        XCTAssertEqual(only[0].callerHangsUp, original.callerHangsUp)
        XCTAssertEqual(ArrivalPlan(scenario: replayed).plannedTotal, 1)
    }

    func testReplayErrorsNameTheirPlace() {
        guard case .failure(let errors) = load(base + "replay: { offset: 2ms, call: -1, rul: x }\n") else {
            return XCTFail("expected errors")
        }
        let text = errors.description
        XCTAssertTrue(text.contains("repro.yaml:7:"), text)
        XCTAssertTrue(text.contains("'call' must be at least 0"), text)
        XCTAssertTrue(text.contains("unknown key 'rul'"), text)
        guard case .failure(let offset) = load(base + "replay: { call: 1, offset: soon }\n") else {
            return XCTFail("expected an offset error")
        }
        XCTAssertTrue(offset.description.contains("expected an offset like 2ms or -5ms, got 'soon'"),
                      offset.description)
    }
}
