import Credentials
import Foundation
import HTTPServer
import TestSupport
import Transport
import XCTest

/// What `target.client: wire` must keep of `target.client: curl`: a server sees the same request from either
/// client (headers as libcurl reads its header lines, bodies when libcurl sends them), and every way a request can
/// fail is booked under the same `TransportError.kind` (errors.csv and the `errors.<kind>` counters).
final class WireSenderParityTests: XCTestCase {
    /// A request as a server saw it: request line, header lines with lowercased names in sorted order, body.
    private struct Seen: Equatable, CustomStringConvertible {
        var line: String
        var headers: [String]
        var body: String
        var description: String { ([line] + headers + [body]).joined(separator: " | ") }

        init(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            let parts = text.components(separatedBy: "\r\n\r\n")
            var lines = parts[0].components(separatedBy: "\r\n")
            line = lines.removeFirst()
            headers = lines.map { header in
                guard let colon = header.firstIndex(of: ":") else { return header }
                return header[..<colon].lowercased() + ":" + header[header.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }.sorted()
            body = parts.dropFirst().joined(separator: "\r\n\r\n")
        }
    }

    func testTheServerSeesTheSameRequestFromEitherClient() throws {
        let seen = LockedList()
        let server = try ScriptedServer { server, fd in
            while let bytes = server.readRequestBytes(fd) {
                seen.append(bytes)
                server.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer { server.stop() }
        let pair = try ClientPair()
        defer { pair.close() }
        let base = "http://127.0.0.1:\(server.port)"
        let json = Array("{\"a\":1}".utf8)
        let requests = [
            ClientRequest(method: "POST", url: base + "/calls", headers: ["content-type: application/json"],
                          body: json),
            ClientRequest(method: "POST", url: base + "/form", body: Array("x=1".utf8)),
            ClientRequest(method: "POST", url: base + "/empty"),
            ClientRequest(method: "GET", url: base + "/calls/7?v=1", headers: ["X-Trace: abc", "Accept: text/plain"]),
            ClientRequest(method: "GET", url: base + "/ignored-body", body: json),
            ClientRequest(method: "PUT", url: base + "/calls/7", headers: ["Content-Type: application/json"],
                          body: json),
            ClientRequest(method: "DELETE", url: base + "/calls/7"),
            ClientRequest(method: "GET", url: base + "/shaped", headers: ["Accept:", "X-Empty;", "no colon",
                                                                         "Host: calls.example"]),
            ClientRequest(method: "POST", url: base + "/length", headers: ["Content-Length: 7"], body: json),
        ]
        for request in requests {
            seen.take()
            XCTAssertEqual(try pair.send(request, wire: false).get().status, 200, request.url)
            let byCurl = seen.take().map(Seen.init)
            XCTAssertEqual(try pair.send(request, wire: true).get().status, 200, request.url)
            let byWire = seen.take().map(Seen.init)
            XCTAssertEqual(byWire.count, 1, request.url)
            XCTAssertEqual(byWire, byCurl, request.url)
        }
        // The wire client held one connection for all of them, as libcurl did for its own.
        XCTAssertEqual(server.connections, 2)
    }

    func testEveryFailureIsBookedUnderTheSameKindByEitherClient() throws {
        let cases: [(name: String, kind: String, script: @Sendable (ScriptedServer, Int32) -> Void)] = [
            ("closed before answering", "reset", { server, fd in _ = server.readRequest(fd) }),
            ("reset at once", "reset", { server, fd in server.resetOnClose(fd) }),
            ("reset in the head", "reset", { server, fd in
                _ = server.readRequest(fd)
                server.send(fd, "HTTP/1.1 200 OK\r\nContent-Le")
                server.resetOnClose(fd)
            }),
            ("closed in the body", "reset", { server, fd in
                _ = server.readRequest(fd)
                server.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello")
            }),
            ("not HTTP", "protocol", { server, fd in
                _ = server.readRequest(fd)
                server.send(fd, "SSH-2.0-OpenSSH_9.2\r\n\r\n")
            }),
            ("never answers", "timeout", { server, fd in
                _ = server.readRequest(fd)
                _ = server.readRequest(fd)  // until the client gives up and closes
            }),
        ]
        let pair = try ClientPair()
        defer { pair.close() }
        for (name, kind, script) in cases {
            let server = try ScriptedServer(script: script)
            defer { server.stop() }
            var request = ClientRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/x",
                                        headers: ["content-type: application/json"], body: Array("{}".utf8),
                                        timeoutMillis: 300)
            request.collectsHeaders = false
            let kinds = pair.failureKinds(request)
            XCTAssertEqual(kinds.curl, kind, "curl, \(name)")
            XCTAssertEqual(kinds.wire, kind, "wire, \(name)")
        }
        let closed = try ScriptedServer { _, _ in }
        let port = closed.port
        closed.stop()
        let refused = pair.failureKinds(ClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        XCTAssertEqual(refused.curl, "refused")
        XCTAssertEqual(refused.wire, "refused")
    }

    func testAResponseOverTheLimitIsTooLargeForEitherClient() throws {
        let server = try ScriptedServer { server, fd in
            _ = server.readRequest(fd)
            server.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 64\r\n\r\n" + String(repeating: "x", count: 64))
        }
        defer { server.stop() }
        var configuration = HTTPClient.Configuration()
        configuration.maxResponseBytes = 16
        let pair = try ClientPair(configuration: configuration)
        defer { pair.close() }
        let kinds = pair.failureKinds(ClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/big"))
        XCTAssertEqual(kinds.curl, "response_too_large")
        XCTAssertEqual(kinds.wire, "response_too_large")
    }

    func testHTTPSIsVerifiedAgainstTheConfiguredCAOrFailsAsTLS() throws {
        let dir = TemporaryDirectory.path("wire-parity-tls").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let material = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.tls = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath)
        let server = HTTPServer(configuration: serverConfiguration, handler: HTTPClosureHandler { request, respond in
            respond(.text(200, request.path))
        })
        try server.start()
        defer { server.stop() }
        let request = ClientRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/secure")
        var trusting = HTTPClient.Configuration()
        trusting.caFile = material.caCertificatePath
        let pair = try ClientPair(configuration: trusting)
        defer { pair.close() }
        for wire in [false, true] {
            let response = try pair.send(request, wire: wire).get()
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "/secure", "wire \(wire)")
        }
        let untrusting = try ClientPair()
        defer { untrusting.close() }
        let kinds = untrusting.failureKinds(request)
        XCTAssertEqual(kinds.curl, "tls")
        XCTAssertEqual(kinds.wire, "tls")
    }
}

/// Requests a scripted server saw, from its connection threads.
private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [[UInt8]] = []

    func append(_ bytes: [UInt8]) { lock.withLock { items.append(bytes) } }

    /// What was seen since the last take, emptied.
    func take() -> [[UInt8]] {
        lock.withLock {
            defer { items = [] }
            return items
        }
    }
}
