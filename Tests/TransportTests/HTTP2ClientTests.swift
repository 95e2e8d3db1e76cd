import Credentials
import Dispatch
import Foundation
import HTTPServer
import Transport
import XCTest

/// libcurl's HTTP/2 over TLS (the reference target's APNs client) against the project's own HTTP/2 server.
final class HTTP2ClientTests: XCTestCase {
    func testConcurrentRequestsMultiplexOnOneTLSConnection() throws {
        let dir = NSTemporaryDirectory() + "callstorm-h2client-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tls = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        var config = HTTPServerConfiguration()
        config.tls = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath)
        let server = HTTPServer(configuration: config, handler: HTTPClosureHandler { request, respond in
            // Answer late, so the requests really are in flight together.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                respond(.text(200, request.path))
            }
        })
        try server.start()
        defer { server.stop() }

        let queue = DispatchQueue(label: "test.h2client")
        var clientConfig = HTTPClient.Configuration()
        clientConfig.version = .http2TLS(caFile: tls.caCertificatePath)
        nonisolated(unsafe) var client: HTTPClient!
        queue.sync { client = HTTPClient(queue: queue, configuration: clientConfig) }
        defer { queue.sync { client.close() } }

        let count = 40
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var statuses: [Int] = []
        nonisolated(unsafe) var bodies = Set<String>()
        queue.async {
            for i in 0..<count {
                let request = ClientRequest(method: "POST", url: "https://127.0.0.1:\(server.port)/r\(i)",
                                            body: Array("{}".utf8))
                client.send(request) { result in
                    switch result {
                    case .success(let response):
                        statuses.append(response.status)
                        bodies.insert(String(decoding: response.body, as: UTF8.self))
                    case .failure(let error):
                        XCTFail("\(error)")
                        statuses.append(-1)
                    }
                    if statuses.count == count { done.signal() }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        queue.sync {
            XCTAssertEqual(statuses, Array(repeating: 200, count: count))
            XCTAssertEqual(bodies.count, count)
        }
        XCTAssertEqual(server.stats.connectionsAccepted, 1, "PIPEWAIT + multiplexing: one connection")
        XCTAssertEqual(server.stats.http2Connections, 1)
        XCTAssertGreaterThan(server.stats.maxStreamsOpen, 1, "streams were open together")
    }
}
