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

/// A worker's device socket against a loopback WebSocket server, the worker's wheel on a manual clock: the hello,
/// an action answered by its echoed id, a dropped socket (the fault hook) reconnecting after its backoff with the
/// action queued meanwhile sent once it is back, a reply that never comes timing out, and the books at the stop.
final class WorkerSocketTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    /// Answers messages that carry `"reply":true` with `{rid, code, data}`; keeps every text it got.
    private final class Server: WebSocketSession, @unchecked Sendable {
        let texts = Mutex<[String]>([])

        func opened(_ peer: WebSocketPeer) {}

        func received(_ message: Message, from peer: WebSocketPeer) {
            guard case .text(let text) = message else { return }
            texts.withLock { $0.append(text) }
            guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  json["reply"] as? Bool == true, let id = json["rid"] as? String else { return }
            peer.send(text: "{\"rid\":\"\(id)\",\"code\":202,\"data\":{\"ok\":true}}")
        }

        func closed(_ peer: WebSocketPeer, _ report: CloseReport) {}
    }

    private func scenario(port: Int) throws -> Scenario {
        let yaml = """
            name: worker-sockets
            devices: 2
            target:
              url: "http://127.0.0.1:\(port)"
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
        let server = Server()
        let harness = try SocketWorkerHarness(session: server, scenario: scenario(port:))
        defer { harness.stop() }
        let worker = harness.worker
        worker.loop.sync { worker.socketRegistered(0) }
        harness.eventually("open") { worker.socketPhase(0) == .open }
        harness.eventually("hello") { server.texts.withLock { $0 } == ["{\"hello\":\"dev-0\"}"] }

        let answers = Mutex<[String]>([])
        let record: @Sendable (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void = { result, e in
            switch result {
            case .success(let r):
                let accepted = e?.accepts(r.status) == true
                answers.withLock { $0.append("\(r.status) \(accepted) \(String(decoding: r.body, as: UTF8.self))") }
            case .failure(let error): answers.withLock { $0.append(error.kind) }
            }
        }
        worker.loop.sync { XCTAssertTrue(worker.sendOverSocket("pause", [:], device: 0, completion: record)) }
        harness.eventually("the reply") { answers.withLock { $0 } == ["202 true {\"ok\":true}"] }
        worker.loop.sync { XCTAssertFalse(worker.sendOverSocket("join", [:], device: 0, completion: record)) }

        // A drop the device did not decide: lost, then the backoff (100 ms, no jitter) brings it back.
        worker.loop.sync { XCTAssertTrue(worker.dropSocket(0)) }
        XCTAssertEqual(worker.loop.sync { worker.socketPhase(0) }, .closed)
        worker.loop.sync { _ = worker.sendOverSocket("pause", [:], device: 0, completion: record) }
        harness.advance(by: 150 * ms)
        harness.eventually("the queued action's reply") { answers.withLock { $0.count } == 2 }
        XCTAssertEqual(answers.withLock { $0.last }, "202 true {\"ok\":true}")

        // No reply within action_timeout.
        worker.loop.sync { _ = worker.sendOverSocket("end", [:], device: 0, completion: record) }
        harness.advance(by: 2_100 * ms)
        harness.eventually("the timeout") { answers.withLock { $0.count } == 3 }
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
