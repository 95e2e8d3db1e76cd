import Faults
import XCTest

final class ResetFaultTests: XCTestCase {
    func testAResetHitsItsOwnShareOfConnectionsDownstreamWhateverTheWindowSays() throws {
        let specs = NetworkFixtures.specs(["reset": ["toxicity": 0.01]], direction: "upstream", probability: 0.5)
        let spec = try XCTUnwrap(specs.first)
        XCTAssertEqual(spec.kind, "reset_peer")
        XCTAssertEqual(spec.toxicity, 0.01)
        XCTAssertEqual(spec.direction, .downstream)
        XCTAssertEqual(spec.attributes, ["timeout": 0])
    }
}
