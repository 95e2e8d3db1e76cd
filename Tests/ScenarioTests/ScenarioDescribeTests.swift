import XCTest
@testable import Scenario

final class ScenarioDescribeTests: XCTestCase {
    func testDescribeSummarisesTheRun() throws {
        let yaml = """
            name: nightly
            seed: 42
            devices: 500
            load:
              - { ramp: { from: 0/s, to: 50/s, over: 1m } }
              - { hold: { rate: 50/s, for: 2m } }
            mix: { incoming-1to1: 70, group-merge: 30 }

            """
        let scenario = try ScenarioLoader.parse(yaml, file: "nightly.yaml",
                                                knownFlows: ["incoming-1to1", "group-merge"]).get()
        let text = scenario.describe()
        XCTAssertTrue(text.hasPrefix("scenario 'nightly' (nightly.yaml)"), text)
        XCTAssertTrue(text.contains("seed 42, 500 devices"), text)
        XCTAssertTrue(text.contains("load: ramp 0/s -> 50/s over 1m, hold 50/s for 2m"), text)
        XCTAssertTrue(text.contains("planned calls: 7500 (peak 50/s)"), text)
        XCTAssertTrue(text.contains("mix: incoming-1to1 70%, group-merge 30%"), text)
        XCTAssertTrue(text.contains("answer after 1s, talk 5s, hangup random"), text)
    }

    func testDescribeMentionsDurationTruncation() {
        let scenario = Scenario(name: "x", duration: 30_000_000_000, devices: 2,
                                load: [.hold(rate: 1, nanos: 60_000_000_000)])
        XCTAssertTrue(scenario.describe().contains("duration cuts the stages at 30s"), scenario.describe())
        XCTAssertTrue(scenario.describe().contains("planned calls: 30 "), scenario.describe())
    }
}
