import Faults
import XCTest

final class SlowCloseFaultTests: XCTestCase {
    func testItBecomesOneslow_closeToxicOnTheWindowsShareOfConnections() throws {
        let specs = NetworkFixtures.specs(["slow_close": ["ms": 50]], direction: "both", probability: 0.3)
        XCTAssertEqual(specs.map(\.kind), ["slow_close"])
        XCTAssertEqual(specs.first?.attributes, ["delay": 50])
        XCTAssertEqual(specs.first?.toxicity, 0.3)
        XCTAssertEqual(specs.first?.direction, .both)
    }

    func testAWindowWithoutItMakesNone() {
        XCTAssertNil(SlowCloseFault(window: FaultFixtures.window(network: NetworkFaults(toxics: ["other": [:]]))))
    }
}
