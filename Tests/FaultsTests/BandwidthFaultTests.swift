import Faults
import XCTest

final class BandwidthFaultTests: XCTestCase {
    func testItBecomesOnebandwidthToxicOnTheWindowsShareOfConnections() throws {
        let specs = NetworkFixtures.specs(["bandwidth": ["rate_kbps": 64]], direction: "both", probability: 0.3)
        XCTAssertEqual(specs.map(\.kind), ["bandwidth"])
        XCTAssertEqual(specs.first?.attributes, ["rate": 64])
        XCTAssertEqual(specs.first?.toxicity, 0.3)
        XCTAssertEqual(specs.first?.direction, .both)
    }

    func testAWindowWithoutItMakesNone() {
        XCTAssertNil(BandwidthFault(window: FaultFixtures.window(network: NetworkFaults(toxics: ["other": [:]]))))
    }
}
