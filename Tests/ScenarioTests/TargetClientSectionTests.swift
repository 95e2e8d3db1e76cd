import XCTest
@testable import Scenario

/// `target.client`: which HTTP client carries the devices' requests; curl unless the scenario says wire, for the
/// embedded target and a `url` target alike, and a misspelt name is an error at its place with a suggestion.
final class TargetClientSectionTests: XCTestCase {
    private func load(_ target: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: client\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + target,
                             file: "run.yaml")
    }

    func testCurlUnlessTheScenarioNamesTheWireClient() throws {
        XCTAssertEqual(try load("target: { embedded: true }\n").get().targetClient, .curl)
        XCTAssertEqual(try load("target: { embedded: true, client: curl }\n").get().targetClient, .curl)
        let embedded = try load("target: { embedded: true, client: wire }\n").get()
        XCTAssertEqual(embedded.targetClient, .wire)
        XCTAssertTrue(embedded.describe().contains("target.client: wire"), embedded.describe())
        XCTAssertFalse(try load("target: { embedded: true }\n").get().describe().contains("target.client"))
        XCTAssertEqual(try load("target: { url: \"http://127.0.0.1:8080\", client: wire }\n").get().targetClient,
                       .wire)
    }

    func testAnUnknownClientIsAnErrorWithASuggestion() {
        guard case .failure(let errors) = load("target: { embedded: true, client: wires }\n") else {
            return XCTFail("'wires' is not a client")
        }
        XCTAssertTrue(errors.description.contains("run.yaml:4:35: error: 'client' must be one of curl, wire, "
                                                  + "got 'wires' (did you mean 'wire'?)"), errors.description)
    }
}
