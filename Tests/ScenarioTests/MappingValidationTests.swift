import Scenario
import XCTest

/// `callstorm validate` finds mapping mistakes in one pass, each at its file, line and column.
final class MappingValidationTests: XCTestCase {
    /// Five planted mistakes: an unknown variable, a JSON path that cannot parse (a capture and a push field), a
    /// view mapping without an id path, and a flow step whose operation is not mapped (hold-resume's pause).
    static let planted = """
        name: planted
        devices: 10
        target:
          url: "http://127.0.0.1:9000"
          api:
            register: { method: PUT, path: "/users/${device.idd}" }
            start: { method: POST, path: /calls, capture: { conversation.id: "call.id" } }
            join: { method: POST, path: "/calls/${conversation.id}/answer" }
            end: { method: POST, path: "/calls/${conversation.id}/leave" }
            resume: { method: POST, path: "/calls/${conversation.id}/resume" }
            push: { conversation: "$..callId" }
            view:
              members: "$.participants"
              member: { id: "$.user", status: "$.st" }
        load: [ { hold: { rate: 1/s, for: 1s } } ]
        mix: { hold-resume: 100 }
        """

    func testFivePlantedMappingMistakesGiveFiveLocatedErrors() {
        guard case .failure(let errors) = ScenarioLoader.parse(Self.planted, file: "p.yaml") else {
            return XCTFail("a scenario with five mapping mistakes must not validate")
        }
        let lines = errors.description.split(separator: "\n").filter { $0.contains(": error: ") }
        XCTAssertEqual(lines.count, 5, errors.description)
        let text = errors.description
        XCTAssertTrue(text.contains("p.yaml:6:36: error: unknown variable '${device.idd}'"), text)
        XCTAssertTrue(text.contains("did you mean 'device.id'?"), text)
        XCTAssertTrue(text.contains("p.yaml:7:70: error: 'conversation.id' must be a JSON path"), text)
        XCTAssertTrue(text.contains("p.yaml:11:27: error: 'conversation' must be a JSON path"), text)
        XCTAssertTrue(text.contains("p.yaml:13:7: error:") && text.contains("'id'"), text)
        XCTAssertTrue(text.contains("p.yaml:4:3: error: flow 'hold-resume' step 'hold' needs 'target.api.pause'"),
                      text)
    }
}
