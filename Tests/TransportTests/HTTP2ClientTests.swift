import Credentials
import Dispatch
import Foundation
import HTTPServer
import TestSupport
import Transport
import XCTest

/// libcurl's HTTP/2 over TLS (the reference target's APNs client) against the project's own HTTP/2 server.
final class HTTP2ClientTests: XCTestCase {
    func testConcurrentRequestsMultiplexOnOneTLSConnection() throws {
        try run(count: 40, answerAfterMillis: 20)
    }

    /// Thousands of requests on one connection with a steady window in flight, as the target's APNs client sends
    /// them. (The scale run's connection cuts by nghttp2's rapid-reset limit did not reproduce in this shape; the
    /// scale scenario is what showed them.)
    func testThousandsOfRequestsStayOnOneConnectionWithoutProtocolErrors() throws {
        try run(count: 3000, answerAfterMillis: 0)
    }

    private func run(count: Int, answerAfterMillis: Int) throws {
        let dir = TemporaryDirectory.path("h2client").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tls = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        var config = HTTPServerConfiguration()
        config.tls = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath)
        let server = HTTPServer(configuration: config, handler: HTTPClosureHandler { request, respond in
            // Answer late, so the requests really are in flight together.
            if answerAfterMillis == 0 { return respond(.text(200, request.path)) }
            // sleep-ok: a 20 ms late answer keeps the client's 40 streams in flight together on one connection
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(answerAfterMillis)) {
                respond(.text(200, request.path))
            }
        })
        try server.start()
        defer { server.stop() }

        let queue = DispatchQueue(label: "test.h2client")
        var clientConfig = HTTPClient.Configuration()
        clientConfig.version = .http2TLS
        clientConfig.caFile = tls.caCertificatePath
        nonisolated(unsafe) var client: HTTPClient!
        queue.sync { client = HTTPClient(queue: queue, configuration: clientConfig) }
        defer { queue.sync { client.close(); sendNext = nil } }

        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var statuses: [Int] = []
        nonisolated(unsafe) var bodies = Set<String>()
        // At most `window` in flight: each answer sends the next request, as a steady client does.
        let window = min(count, 40)
        nonisolated(unsafe) var sent = 0
        nonisolated(unsafe) var sendNext: (() -> Void)!
        sendNext = {
            guard sent < count else { return }
            let request = ClientRequest(method: "POST", url: "https://127.0.0.1:\(server.port)/r\(sent)",
                                        body: Array("{}".utf8))
            sent += 1
            client.send(request) { result in
                switch result {
                case .success(let response):
                    statuses.append(response.status)
                    bodies.insert(String(decoding: response.body, as: UTF8.self))
                case .failure(let error):
                    XCTFail("\(error)")
                    statuses.append(-1)
                }
                if statuses.count == count { done.signal() } else { sendNext() }
            }
        }
        queue.async {
            for _ in 0..<window { sendNext() }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        queue.sync {
            XCTAssertEqual(statuses, Array(repeating: 200, count: count))
            XCTAssertEqual(bodies.count, count)
        }
        XCTAssertEqual(server.stats.connectionsAccepted, 1, "PIPEWAIT + multiplexing: one connection")
        XCTAssertEqual(server.stats.http2Connections, 1)
        XCTAssertGreaterThan(server.stats.maxStreamsOpen, 1, "streams were open together")
        XCTAssertEqual(server.stats.http2ProtocolErrors, 0)
    }
}
