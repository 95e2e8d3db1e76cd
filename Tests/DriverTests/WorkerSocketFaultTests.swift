@testable import Faults
import Determinism
@testable import Driver
import Foundation
import HTTPServer
import Metrics
import Scenario
import WebSocket
import XCTest

/// Socket faults on a worker whose wheel runs on a manual clock, against in-memory sockets: a drop at its
/// planned instant ends the socket as a loss callstorm caused and the device reconnects after its backoff; a stall
/// pauses reading for its time; both are rows of the fault log; the books balance.
final class WorkerSocketFaultTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func scenario() throws -> Scenario {
        let yaml = """
            name: worker-socket-faults
            devices: 2
            target:
              url: "http://127.0.0.1:9"
              api:
                register: { method: POST, path: /r }
                start: { method: POST, path: /s }
                join: { method: POST, path: /j }
                end: { method: POST, path: /e }
                socket:
                  url: "/ws?device=${device.id}"
                  events: { conversation: "$.call", event: "$.type" }
            device: { socket: always, socket_reconnect: { base: 100ms, max: 1s, jitter: 0 } }
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            faults:
              - { name: drops, at: 1s, for: 1s, device: { socket_drop: 100% } }
              - { name: stalls, at: 3s, for: 1s, device: { socket_stall: 500ms } }
            """
        return try ScenarioLoader.parse(yaml, file: "worker-socket-faults.yaml").get()
    }

    func testADropIsALossCallstormCausedAndAStallPausesReadingForItsTime() throws {
        let harness = try WorkerRig(scenario: scenario())
        defer { harness.stop() }
        let (worker, clock) = (harness.worker, harness.clock)
        // Only device 0 holds a socket: device 1's planned faults find none open and leave no row.
        worker.loop.sync { worker.sockets!.registered(0) }
        harness.expect("open") { worker.sockets!.phase(0) == .open }
        worker.loop.sync {
            worker.faults.loadStart = clock.nowNanos()
            worker.sockets!.planFaults(loadStart: clock.nowNanos())
        }
        XCTAssertEqual(worker.loop.sync { worker.sockets!.plan.pending.count }, 4, "2 devices, 2 windows")

        // The drop comes at its drawn instant in the window (1–2 s), the stall in its own (3–4 s).
        harness.advance(until: "the drop", within: 2_000 * ms) { worker.sockets!.phase(0) != .open }
        harness.advance(by: 150 * ms)
        harness.expect("the reconnect after the backoff") { worker.sockets!.phase(0) == .open }

        harness.advance(until: "the stall", within: 3_000 * ms) { worker.sockets!.plan.stalled.count == 1 }
        XCTAssertEqual(worker.loop.sync { worker.sockets!.phase(0) }, .open, "a stall ends no socket")
        harness.advance(by: 600 * ms)
        harness.expect("reading again") { worker.sockets!.plan.stalled.isEmpty }

        let rows = worker.faults.log.all.map { "\($0.window),\($0.kind),dev-\($0.device)" }
        XCTAssertEqual(rows, ["drops,device.socket_dropped,dev-0", "stalls,device.socket_stalled,dev-0"])
        let c = harness.finish()
        XCTAssertEqual(c[MetricName.socketLost], 1, "\(c)")
        XCTAssertEqual(c[MetricName.socketLostInjected], 1, "\(c)")
        XCTAssertEqual(c[MetricName.socketReconnects], 1, "\(c)")
        XCTAssertEqual(c[MetricName.fault("device.socket_dropped")], 1, "\(c)")
        XCTAssertEqual(c[MetricName.fault("device.socket_stalled")], 1, "\(c)")
        XCTAssertTrue(Books(counters: c).sockets?.balanced == true, "\(Books(counters: c).problems)")
    }
}
