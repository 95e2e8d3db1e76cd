import Determinism
@testable import Driver
import Metrics
import Scenario
import XCTest

/// The device-signaling seam on a real worker on the embedded loop: which kind serves each device
/// (`SignalingRegistry`, first that exists and serves it), the app's moments reaching the device's kind, and a
/// kind's timers carried on the worker's wheel as `SignalingTimer` values and read back by that kind alone.
final class DeviceSignalingsTests: XCTestCase {
    private func scenario(socket: Bool) throws -> Scenario {
        let socketLines = socket ? """
                socket:
                  url: "/ws?device=${device.id}"
                  events: { conversation: "$.call", event: "$.type" }
            device: { socket: on_push, socket_linger: 1s }
            """ : ""
        let yaml = """
            name: signaling
            devices: 2
            target:
              url: "http://127.0.0.1:9"
              api:
                register: { method: POST, path: /r }
                start: { method: POST, path: /s }
                join: { method: POST, path: /j }
                end: { method: POST, path: /e }
            \(socketLines)
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            """
        return try ScenarioLoader.parse(yaml, file: "signaling.yaml").get()
    }

    func testDevicesWithoutSocketsSignalOverHTTPOnly() throws {
        let rig = try WorkerRig(scenario: scenario(socket: false))
        defer { rig.stop() }
        let signaling = rig.worker.signaling
        XCTAssertEqual(signaling.kinds.count, 1)
        XCTAssertTrue(signaling[0] is HTTPSignaling)
        XCTAssertTrue(signaling[1] is HTTPSignaling)
        XCTAssertNil(rig.worker.sockets, "no pool made, nothing counted")
    }

    func testDevicesWithSocketsAreServedByTheSocketKindBeforeHTTP() throws {
        let rig = try WorkerRig(scenario: scenario(socket: true))
        defer { rig.stop() }
        let signaling = rig.worker.signaling
        XCTAssertEqual(signaling.kinds.count, 2, "the socket kind, then HTTP (which serves every device)")
        XCTAssertTrue(signaling[0] is DeviceSockets)
        XCTAssertTrue(signaling[1] is DeviceSockets)
    }

    func testAReportedPushIsAMomentOfTheDevicesSignalingAndOpensItsSocket() throws {
        let rig = try WorkerRig(scenario: scenario(socket: true))
        defer { rig.stop() }
        let worker = rig.worker
        worker.sockets?.registered(0)  // what its registration's good answer does
        XCTAssertEqual(worker.sockets?.phase(0), .closed, "on_push: closed while the device has no conversation")
        worker.signaling[0].moment(.pushReported(conversation: "c1", acceptedNanos: rig.clock.nowNanos()), device: 0)
        rig.expect("the socket opens for the reported call") { worker.sockets?.phase(0) == .open }
        XCTAssertEqual(worker.sockets?.phase(1), .closed, "the other device heard nothing")
    }

    func testSocketTimersSurviveTheWheelsValueAndComeBackToTheirKind() {
        let timers: [SocketSignalingTimer] = [
            .lifecycle(.reconnect(device: 3, token: 9)), .lifecycle(.linger(device: 1, token: 2)), .reply("w0-7"),
            .fault(.due), .fault(.resume(socket: 42)),
        ]
        for timer in timers {
            let carried = timer.timer(slot: 1)
            XCTAssertEqual(carried.slot, 1)
            XCTAssertEqual(SocketSignalingTimer(carried), timer)
        }
        XCTAssertNil(SocketSignalingTimer(SignalingTimer(slot: 0, code: 99)), "another kind's code is not read")
    }
}
