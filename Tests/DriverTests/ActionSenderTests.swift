import Determinism
@testable import Driver
import Metrics
import Scenario
import Transport
import XCTest

/// The action sender on a real worker on the embedded loop, its target in memory: requests rendered from the
/// mapping with the device's variables, and answers the endpoint does not expect counted by status.
final class ActionSenderTests: XCTestCase {
    private func rig() throws -> WorkerRig {
        let yaml = """
            name: sender
            devices: 2
            target:
              url: "http://127.0.0.1:9"
              api:
                register: { method: PUT, path: "/devices/${device.id}", body: '{"token":"${device.token}"}' }
                start: { method: POST, path: /s }
                join: { method: POST, path: /j }
                end: { method: POST, path: /e }
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            """
        return try WorkerRig(scenario: try ScenarioLoader.parse(yaml, file: "sender.yaml").get())
    }

    func testRegistrationsAreRenderedFromTheMappingWithEachDevicesVariables() throws {
        let rig = try rig()
        defer { rig.stop() }
        rig.loop.target = { _ in ClientResponse(status: 200, body: []) }
        rig.worker.registerAll(concurrency: 1) {}
        rig.loop.runPending()
        let requests = rig.loop.requests
        XCTAssertEqual(requests.map(\.method), ["PUT", "PUT"])
        XCTAssertEqual(requests.map(\.url), ["http://127.0.0.1:9/devices/dev-0", "http://127.0.0.1:9/devices/dev-1"])
        let token = rig.worker.table.devices[0].identity.apnsToken
        XCTAssertEqual(String(decoding: requests[0].body, as: UTF8.self), "{\"token\":\"\(token)\"}")
        XCTAssertEqual(rig.worker.books.recorder.counters[MetricName.devicesRegistered], 2)
    }

    func testAnAnswerTheEndpointDoesNotExpectIsCountedByItsStatus() throws {
        let rig = try rig()
        defer { rig.stop() }
        rig.loop.target = { _ in ClientResponse(status: 503, body: []) }
        rig.worker.registerAll(concurrency: 2) {}
        rig.loop.runPending()
        let c = rig.worker.books.recorder.counters
        XCTAssertEqual(c[MetricName.devicesRegisterFailed], 2)
        XCTAssertEqual(c["errors.http_503"], 2)
        XCTAssertNil(c[MetricName.devicesRegistered])
    }
}
