import StreamIO
import Credentials
import Dispatch
import Foundation
import HTTPServer
@testable import HTTPWire
import Locking
import TestSupport
import WebSocketClient
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The client against the project's own HTTP server and against servers that misbehave on purpose.
final class WireClientTests: XCTestCase {
    private func echoServer(tls: TLSFiles? = nil) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.tls = tls
        let server = HTTPServer(configuration: configuration, handler: HTTPClosureHandler { request, respond in
            respond(.text(200, request.path))
        })
        try server.start()
        return server
    }

    func testKeepAliveCarriesEveryRequestOnOneConnection() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        for i in 0..<5 {
            let response = try client.request("http://127.0.0.1:\(server.port)/n\(i)?q=1").get()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "/n\(i)?q=1")
        }
        XCTAssertEqual(client.stats, WireClient.Stats(opened: 1, reused: 4, retried: 0))
    }

    func testAFreshConnectionRequestOpensItsOwnAndClosesItAfter() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        XCTAssertEqual(try client.request("http://127.0.0.1:\(server.port)/kept").get().status, 200)
        var request = try WireRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/fresh")
        request.freshConnection = true
        let done = DispatchSemaphore(value: 0)
        client.queue.sync { client.client.send(request) { _ in done.signal() } }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(try client.request("http://127.0.0.1:\(server.port)/kept").get().status, 200)
        // The kept connection served the first and the last; the fresh one was opened and closed for its own.
        XCTAssertEqual(client.stats, WireClient.Stats(opened: 2, reused: 1, retried: 0))
        XCTAssertEqual(client.queue.sync { client.client.openConnections }, 1)
    }

    func testRequestsBeyondTheConnectionLimitWaitForAFreeConnection() throws {
        let server = try echoServer()
        defer { server.stop() }
        var configuration = WireClient.Configuration()
        configuration.maxConnectionsPerOrigin = 2
        let client = WireHarness(configuration: configuration)
        defer { client.shutDown() }
        let request = try WireRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/w")
        let done = DispatchSemaphore(value: 0)
        let statuses = Mutex<[Int]>([])
        client.queue.sync {
            for _ in 0..<10 {
                client.client.send(request) { result in
                    statuses.withLock { $0.append((try? result.get().status) ?? -1) }
                    done.signal()
                }
            }
        }
        for _ in 0..<10 { XCTAssertEqual(done.wait(timeout: .now() + 20), .success) }
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: 10))
        XCTAssertEqual(client.stats.opened, 2)
    }

    func testIdleConnectionsBeyondTheCacheAreClosedWhenTheirExchangeEnds() throws {
        let server = try echoServer()
        defer { server.stop() }
        var configuration = WireClient.Configuration()
        configuration.maxIdlePerOrigin = 1
        let client = WireHarness(configuration: configuration)
        defer { client.shutDown() }
        let request = try WireRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/i")
        let done = DispatchSemaphore(value: 0)
        client.queue.sync {
            for _ in 0..<3 { client.client.send(request) { _ in done.signal() } }
        }
        for _ in 0..<3 { XCTAssertEqual(done.wait(timeout: .now() + 20), .success) }
        // Three at once opened three (the cache limits idle ones, not ones in use); one stays for reuse.
        XCTAssertEqual(client.stats.opened, 3)
        XCTAssertEqual(client.queue.sync { client.client.openConnections }, 1)
        XCTAssertEqual(try client.request("http://127.0.0.1:\(server.port)/again").get().status, 200)
        XCTAssertEqual(client.stats.opened, 3)
    }

    func testTLSThroughTheSharedOpenSSLClientPath() throws {
        let dir = TemporaryDirectory.path("wire-tls").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let material = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        let server = try echoServer(tls: TLSFiles(certificatePath: material.certificatePath,
                                                   keyPath: material.keyPath))
        defer { server.stop() }
        let client = WireHarness(tls: try ClientTLS(caFile: material.caCertificatePath))
        defer { client.shutDown() }
        for path in ["/a", "/b"] {
            let response = try client.request("https://127.0.0.1:\(server.port)\(path)").get()
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), path)
        }
        XCTAssertEqual(client.stats.opened, 1)
        // A server whose certificate the client's store does not trust fails the handshake as `tls`.
        let untrusting = WireHarness(tls: try ClientTLS(caFile: nil))
        defer { untrusting.shutDown() }
        XCTAssertEqual(untrusting.request("https://127.0.0.1:\(server.port)/").failure?.kind, "tls")
        // And an https URL on a client without TLS says so.
        let plain = WireHarness()
        defer { plain.shutDown() }
        XCTAssertEqual(plain.request("https://127.0.0.1:\(server.port)/").failure, .noTLSContext)
    }

    func testAReusedConnectionTheServerClosesUnansweredIsRetriedOnANewOne() throws {
        let server = try ScriptedServer { server, fd in
            let first = server.connections == 1
            guard server.readRequest(fd) else { return }
            server.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            // The first connection takes the second request and closes without a byte: the keep-alive race.
            if first { _ = server.readRequest(fd) }
        }
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        XCTAssertEqual(try client.request("http://127.0.0.1:\(server.port)/").get().status, 200)
        XCTAssertEqual(try client.request("http://127.0.0.1:\(server.port)/").get().status, 200)
        XCTAssertEqual(client.stats, WireClient.Stats(opened: 2, reused: 1, retried: 1))
    }

    func testAServerClosingMidBodyFailsNamingWhatWasMissing() throws {
        let server = try ScriptedServer { server, fd in
            guard server.readRequest(fd) else { return }
            server.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello")
        }
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        let failure = client.request("http://127.0.0.1:\(server.port)/").failure
        XCTAssertEqual(failure, .connectionClosed("5 bytes of a Content-Length body missing"))
        XCTAssertEqual(failure?.kind, "reset")
    }

    func testAMalformedResponseFailsAsAProtocolError() throws {
        let server = try ScriptedServer { server, fd in
            guard server.readRequest(fd) else { return }
            server.send(fd, "HTTP/1.1 200 OK\r\nContent Length: 5\r\n\r\nhello")
        }
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        let failure = client.request("http://127.0.0.1:\(server.port)/").failure
        XCTAssertEqual(failure, .malformed(.headerLine("Content Length: 5", reason: "whitespace before the colon")))
        XCTAssertEqual(failure?.kind, "protocol")
    }

    func testAServerThatNeverAnswersTimesOut() throws {
        let server = try ScriptedServer { server, fd in
            guard server.readRequest(fd) else { return }
            _ = server.readRequest(fd)  // until the client gives up and closes
        }
        defer { server.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        let failure = client.request("http://127.0.0.1:\(server.port)/", timeoutMillis: 200).failure
        XCTAssertEqual(failure, .responseTimeout(millis: 200))
        XCTAssertEqual(failure?.kind, "timeout")
    }

    func testARefusedConnectionIsRefused() throws {
        let server = try ScriptedServer { _, _ in }
        let port = server.port
        server.stop()
        let client = WireHarness()
        defer { client.shutDown() }
        XCTAssertEqual(client.request("http://127.0.0.1:\(port)/").failure?.kind, "refused")
    }

    func testBadURLsAndHeadersAreRefusedBeforeAnythingIsSent() {
        XCTAssertThrowsError(try WireRequest(method: "GET", url: "ftp://x/")) {
            XCTAssertEqual($0 as? WireError, .badURL("ftp://x/ is not an http:// or https:// URL"))
        }
        XCTAssertThrowsError(try WireRequest(method: "GET", url: "http://a/", headers: [("X", "a\r\nEvil: 1")]))
        XCTAssertThrowsError(try WireRequest(method: "G T", url: "http://a/"))
    }
}
