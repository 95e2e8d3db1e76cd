import Determinism
@testable import Driver
import Foundation
import HTTPServer
import Locking
import Metrics
import Scenario
import Transport
import WebSocket
import XCTest

/// A worker's device socket on the embedded loop under the manual clock, against an in-memory socket server: the hello,
/// an action answered by its echoed id, a dropped socket (the fault hook) reconnecting after its backoff with the
/// action queued meanwhile sent once it is back, a reply that never comes timing out, and the books at the stop.
final class WorkerSocketTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    /// Answers messages that carry `"reply":true` with `{rid, code, data}`.
    private static func server(_ text: String) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              json["reply"] as? Bool == true, let id = json["rid"] as? String else { return nil }
        return "{\"rid\":\"\(id)\",\"code\":202,\"data\":{\"ok\":true}}"
    }

    private func scenario() throws -> Scenario {
        let yaml = """
            name: worker-sockets
            devices: 2
            target:
              url: "http://127.0.0.1:9"
              api:
                register: { method: POST, path: /r }
                start: { method: POST, path: /s }
                join: { method: POST, path: /j }
                end: { method: POST, path: /e }
                pause: { method: POST, path: /p, expect: [202] }
                socket:
                  url: "/ws?device=${device.id}"
                  hello: '{"hello":"${device.id}"}'
                  events: { conversation: "$.call", event: "$.type" }
                  actions:
                    pause: '{"rid":"${request.id}","reply":true}'
                    end: '{"rid":"${request.id}","reply":false}'
                  reply: { id: "$.rid", status: "$.code", body: "$.data" }
            device: { socket: always, socket_reconnect: { base: 100ms, max: 1s, jitter: 0 } }
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            action_timeout: 2s
            """
        return try ScenarioLoader.parse(yaml, file: "worker-sockets.yaml").get()
    }

    func testHelloRepliesReconnectQueueTimeoutAndBooks() throws {
        let harness = try WorkerRig(server: Self.server, scenario: scenario())
        defer { harness.stop() }
        let worker = harness.worker
        worker.loop.sync { worker.sockets!.registered(0) }
        harness.expect("open") { worker.sockets!.phase(0) == .open }
        harness.expect("hello") { harness.texts == ["{\"hello\":\"dev-0\"}"] }

        let answers = Mutex<[String]>([])
        let record: @Sendable (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void = { result, e in
            switch result {
            case .success(let r):
                let accepted = e?.accepts(r.status) == true
                answers.withLock { $0.append("\(r.status) \(accepted) \(String(decoding: r.body, as: UTF8.self))") }
            case .failure(let error): answers.withLock { $0.append(error.kind) }
            }
        }
        worker.loop.sync { XCTAssertTrue(worker.sockets!.send("pause", [:], device: 0, completion: record)) }
        harness.expect("the reply") { answers.withLock { $0 } == ["202 true {\"ok\":true}"] }
        worker.loop.sync { XCTAssertFalse(worker.sockets!.send("join", [:], device: 0, completion: record)) }

        // A drop the device did not decide: lost, then the backoff (100 ms, no jitter) brings it back.
        worker.loop.sync { XCTAssertTrue(worker.sockets!.drop(0)) }
        XCTAssertEqual(worker.loop.sync { worker.sockets!.phase(0) }, .closed)
        worker.loop.sync { _ = worker.sockets!.send("pause", [:], device: 0, completion: record) }
        harness.advance(by: 150 * ms)
        harness.expect("the queued action's reply") { answers.withLock { $0.count } == 2 }
        XCTAssertEqual(answers.withLock { $0.last }, "202 true {\"ok\":true}")

        // No reply within action_timeout.
        worker.loop.sync { _ = worker.sockets!.send("end", [:], device: 0, completion: record) }
        harness.advance(by: 2_100 * ms)
        harness.expect("the timeout") { answers.withLock { $0.count } == 3 }
        XCTAssertEqual(answers.withLock { $0.last }, "timeout")

        let c = harness.finish()
        XCTAssertEqual(c[MetricName.socketOpened], 2, "\(c)")
        XCTAssertEqual(c[MetricName.socketLost], 1, "\(c)")
        XCTAssertEqual(c[MetricName.socketReconnects], 1, "\(c)")
        XCTAssertEqual(c[MetricName.socketOpenAtStop], 1, "\(c)")
        XCTAssertEqual(c["socket.actions.queued"], 1, "\(c)")
        XCTAssertTrue(Books(counters: c).sockets?.balanced == true, "\(Books(counters: c).problems)")
    }
}
