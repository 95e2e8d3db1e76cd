import XCTest
@testable import Scenario

/// `behavior.redial_after_drop`: read with its distribution and share (100% when left out), absent by default,
/// and its mistakes reported where they are.
final class BehaviorDecodingTests: XCTestCase {
    private func load(_ behavior: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: b\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + behavior,
                             file: "b.yaml")
    }

    func testRedialAfterDropIsReadWithItsDefaultShareAndItsMistakesReported() throws {
        XCTAssertNil(try load("").get().behavior.redialAfterDrop)
        let scenario = try load("behavior: { redial_after_drop: { delay: { uniform: [1s, 2s] }, share: 80% } }\n")
            .get()
        let storm = try XCTUnwrap(scenario.behavior.redialAfterDrop)
        XCTAssertTrue(scenario.describe().contains("after a drop 80% of callers redial after uniform(1s..2s)"),
                      scenario.describe())
        XCTAssertEqual(storm.delay, .uniform(1_000_000_000, 2_000_000_000))
        XCTAssertEqual(storm.share, 0.8, accuracy: 1e-12)
        XCTAssertEqual(try load("behavior: { redial_after_drop: { delay: 2s } }\n").get().behavior.redialAfterDrop,
                       RedialAfterDrop(delay: .constant(2_000_000_000), share: 1))
        guard case .failure(let errors) = load("behavior: { redial_after_drop: { share: 180% } }\n") else {
            return XCTFail("expected errors")
        }
        XCTAssertTrue(errors.description.contains("needs a 'delay'"), errors.description)
        guard case .failure(let more) = load("behavior: { redial_after_drop: { delay: 1s, shares: 1 } }\n") else {
            return XCTFail("expected errors")
        }
        XCTAssertTrue(more.description.contains("did you mean 'share'?"), more.description)
    }
}
