import Dispatch
import EventPolling
import HTTPServer
import Transport
import XCTest

/// HTTP clients on one `EventThread` (EventPollingTests pin the thread itself).
final class SharedEventThreadTests: XCTestCase {
    private let queue = DispatchQueue(label: "test.events")

    func testClientsSharingOneEventThreadEachCompleteTheirRequests() throws {
        let server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            respond(.text(200, request.path))
        })
        try server.start()
        defer { server.stop() }
        let events = EventThread(queue: queue, name: "test.events")
        nonisolated(unsafe) var clients: [HTTPClient] = []
        queue.sync { clients = (0..<3).map { _ in HTTPClient(queue: queue, events: events) } }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var bodies: [String] = []
        let total = 60
        queue.async {
            for i in 0..<total {
                let request = ClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/\(i)")
                clients[i % clients.count].send(request) { result in
                    bodies.append((try? result.get()).map { String(decoding: $0.body, as: UTF8.self) } ?? "failed")
                    if bodies.count == total { done.signal() }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        queue.sync {
            XCTAssertEqual(Set(bodies), Set((0..<total).map { "/\($0)" }))
            for client in clients { client.close() }
            events.stop()
        }
    }
}
