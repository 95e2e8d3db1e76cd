@testable import CallstormCLI
import Foundation
import HTTPServer
import Scenario
import TestSupport
import XCTest

/// The shipped `target.api` example drives a server with another API shape through incoming-1to1 and hold-resume.
final class CustomAPITests: XCTestCase {
    func testExampleMappingDrivesAnotherServerThroughTwoFlows() throws {
        let gatewayPort = try CustomAPIExample.freePort()
        let alt = AltCallServer(gatewayURL: "http://127.0.0.1:\(gatewayPort)")
        let server = HTTPServer(handler: alt)
        try server.start()
        defer {
            server.stop()
            alt.close()
        }
        let dir = try TemporaryDirectory.make("custom-api")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try CustomAPIExample.run(serverPort: server.port, gatewayPort: gatewayPort, in: dir)
        let c = outcome.result.recorder.counters
        XCTAssertEqual(c["devices.registered"], 40)
        XCTAssertGreaterThan(c["flow.incoming-1to1.completed"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThan(c["flow.hold-resume.completed"] ?? 0, 0, "\(c)")
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c) \(outcome.result.notes)")
        for kind in ["start", "join", "pause", "resume", "end"] {
            XCTAssertEqual(c["action.\(kind).fulfilled"], c["action.\(kind).started"], "\(kind): \(c)")
        }
        XCTAssertEqual(alt.pushesFailed, 0)
    }

    func testMappingMissingAnEndpointAFlowNeedsIsAnError() {
        let yaml = """
            name: x
            devices: 4
            target:
              url: "http://127.0.0.1:9000"
              api:
                register: { method: PUT, path: "/u/${device.id}" }
                start: { method: POST, path: /calls, capture: { conversation.id: "$.id" } }
                end: { method: DELETE, path: "/calls/${conversation.id}" }
            load: [ { hold: { rate: 1/s, for: 1s } } ]
            mix: { hold-resume: 100 }
            """
        guard case .failure(let errors) = ScenarioLoader.parse(yaml, file: "x.yaml") else {
            return XCTFail("a mapping without join/pause/resume must not validate")
        }
        let text = errors.description
        XCTAssertTrue(text.contains("x.yaml:4:3: error: flow 'hold-resume' step 'answer' needs 'target.api.join'"), text)
        XCTAssertTrue(text.contains("needs 'target.api.pause'"), text)
    }
}
