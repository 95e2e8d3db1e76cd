@testable import Chaos
import Determinism
@testable import Driver
import Foundation
import HTTPServer
import Metrics
import Scenario
import WebSocket
import XCTest

/// Socket faults on a worker whose wheel runs on a manual clock, against a loopback WebSocket server: a drop at its
/// planned instant ends the socket as a loss callstorm caused and the device reconnects after its backoff; a stall
/// pauses reading for its time; both are rows of the fault log; the books balance.
final class WorkerSocketFaultTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private final class Server: WebSocketSession, @unchecked Sendable {
        func opened(_ peer: WebSocketPeer) {}
        func received(_ message: Message, from peer: WebSocketPeer) {}
        func closed(_ peer: WebSocketPeer, _ report: CloseReport) {}
    }

    private func scenario(port: Int) throws -> Scenario {
        let yaml = """
            name: worker-socket-faults
            devices: 2
            target:
              url: "http://127.0.0.1:\(port)"
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
        let harness = try SocketWorkerHarness(session: Server(), scenario: scenario(port:))
        defer { harness.stop() }
        let (worker, clock) = (harness.worker, harness.clock)
        // Only device 0 holds a socket: device 1's planned faults find none open and leave no row.
        worker.loop.sync { worker.socketRegistered(0) }
        harness.eventually("open") { worker.socketPhase(0) == .open }
        worker.loop.sync {
            worker.arrivals.loadStart = clock.nowNanos()
            worker.planSocketFaults()
        }
        XCTAssertEqual(worker.loop.sync { worker.faultState.socketPlan.pending.count }, 4, "2 devices, 2 windows")

        harness.advance(by: 2_000 * ms)
        harness.eventually("the drop") { worker.socketPhase(0) != .open }
        harness.advance(by: 150 * ms)
        harness.eventually("the reconnect after the backoff") { worker.socketPhase(0) == .open }

        harness.advance(by: 2_000 * ms)
        harness.eventually("the stall") { worker.faultState.socketPlan.stalled.count == 1 }
        XCTAssertEqual(worker.loop.sync { worker.socketPhase(0) }, .open, "a stall ends no socket")
        harness.advance(by: 600 * ms)
        harness.eventually("reading again") { worker.faultState.socketPlan.stalled.isEmpty }

        let rows = worker.faultLog.all.map { "\($0.window),\($0.kind),dev-\($0.device)" }
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
