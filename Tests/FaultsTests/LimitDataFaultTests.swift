import Faults
import XCTest

final class LimitDataFaultTests: XCTestCase {
    func testItBecomesOnelimit_dataToxicOnTheWindowsShareOfConnections() throws {
        let specs = NetworkFixtures.specs(["limit_data": ["bytes": 4096]], direction: "both", probability: 0.3)
        XCTAssertEqual(specs.map(\.kind), ["limit_data"])
        XCTAssertEqual(specs.first?.attributes, ["bytes": 4096])
        XCTAssertEqual(specs.first?.toxicity, 0.3)
        XCTAssertEqual(specs.first?.direction, .both)
    }

    func testAWindowWithoutItMakesNone() {
        XCTAssertNil(LimitDataFault(window: FaultFixtures.window(network: NetworkFaults(toxics: ["other": [:]]))))
    }
}
