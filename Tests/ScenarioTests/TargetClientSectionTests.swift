import XCTest
@testable import Scenario

/// `target.client`: which HTTP client carries the devices' requests; our own (`wire`) unless the scenario says curl
/// (issue 33 made it the default), for the embedded target and a `url` target alike, and a misspelt name is an
/// error at its place with a suggestion.
final class TargetClientSectionTests: XCTestCase {
    private func load(_ target: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: client\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + target,
                             file: "run.yaml")
    }

    func testWireUnlessTheScenarioNamesCurl() throws {
        XCTAssertEqual(try load("target: { embedded: true }\n").get().targetClient, .wire)
        XCTAssertEqual(try load("target: { embedded: true, client: wire }\n").get().targetClient, .wire)
        let embedded = try load("target: { embedded: true, client: curl }\n").get()
        XCTAssertEqual(embedded.targetClient, .curl)
        XCTAssertTrue(embedded.describe().contains("target.client: curl"), embedded.describe())
        XCTAssertFalse(try load("target: { embedded: true }\n").get().describe().contains("target.client"))
        XCTAssertEqual(try load("target: { url: \"http://127.0.0.1:8080\", client: curl }\n").get().targetClient,
                       .curl)
    }

    func testAnUnknownClientIsAnErrorWithASuggestion() {
        guard case .failure(let errors) = load("target: { embedded: true, client: wires }\n") else {
            return XCTFail("'wires' is not a client")
        }
        XCTAssertTrue(errors.description.contains("run.yaml:4:35: error: 'client' must be one of curl, wire, "
                                                  + "got 'wires' (did you mean 'wire'?)"), errors.description)
    }
}
