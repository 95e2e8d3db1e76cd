import Faults
import XCTest

final class TimeoutFaultTests: XCTestCase {
    func testItBecomesOnetimeoutToxicOnTheWindowsShareOfConnections() throws {
        let specs = NetworkFixtures.specs(["timeout": ["ms": 2000]], direction: "both", probability: 0.3)
        XCTAssertEqual(specs.map(\.kind), ["timeout"])
        XCTAssertEqual(specs.first?.attributes, ["timeout": 2000])
        XCTAssertEqual(specs.first?.toxicity, 0.3)
        XCTAssertEqual(specs.first?.direction, .both)
    }

    func testAWindowWithoutItMakesNone() {
        XCTAssertNil(TimeoutFault(window: FaultFixtures.window(network: NetworkFaults(toxics: ["other": [:]]))))
    }
}
