import Faults
import XCTest

final class LatencyFaultTests: XCTestCase {
    func testLatencyAndJitterMakeOneLatencyToxic() {
        let specs = NetworkFixtures.specs(["latency": ["ms": 100], "jitter": ["ms": 20]], probability: 0.5)
        XCTAssertEqual(specs.map(\.name), ["w2.latency"])
        XCTAssertEqual(specs.first?.attributes, ["latency": 100, "jitter": 20])
        XCTAssertEqual(specs.first?.toxicity, 0.5)
    }

    func testJitterAloneStillMakesALatencyToxic() {
        XCTAssertEqual(NetworkFixtures.specs(["jitter": ["ms": 20]]).map(\.attributes), [["latency": 0, "jitter": 20]])
    }
}
