import Faults
import XCTest

final class SlicerFaultTests: XCTestCase {
    func testItBecomesOneslicerToxicOnTheWindowsShareOfConnections() throws {
        let specs = NetworkFixtures.specs(["slicer": ["bytes": 32]], direction: "both", probability: 0.3)
        XCTAssertEqual(specs.map(\.kind), ["slicer"])
        XCTAssertEqual(specs.first?.attributes, ["average_size": 32])
        XCTAssertEqual(specs.first?.toxicity, 0.3)
        XCTAssertEqual(specs.first?.direction, .both)
    }

    func testAWindowWithoutItMakesNone() {
        XCTAssertNil(SlicerFault(window: FaultFixtures.window(network: NetworkFaults(toxics: ["other": [:]]))))
    }
}
