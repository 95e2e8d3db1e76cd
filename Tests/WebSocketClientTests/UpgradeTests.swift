import Foundation
import HTTPServer
import ReferenceTarget
import WebSocket
import WebSocketClient
import XCTest

/// The HTTP/1.1 side of the upgrade and the server ending sockets itself.
final class UpgradeTests: XCTestCase {
    private func serve() throws -> (ReferenceTarget, HTTPServer) {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        let server = HTTPServer(handler: target)
        try server.start()
        let body = "{\"id\":\"d\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"+9\",\"displayName\":\"d\"},"
            + "\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
        XCTAssertEqual(httpRequest(port: server.port, "POST", "/v1/devices", body).0, 201)
        return (target, server)
    }

    func testAnUpgradeToSomethingElseIsAnsweredAsHTTPAndPipelinedRequestsBehindItToo() throws {
        let (target, server) = try serve()
        defer { server.stop(); target.close() }
        let answer = exchange(port: server.port, "GET /v1/health HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
            + "Connection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"
            + "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(answer.components(separatedBy: "HTTP/1.1 200").count - 1, 2, answer)
    }

    func testWrongVersionIs426AndAPostIs405() throws {
        let (target, server) = try serve()
        defer { server.stop(); target.close() }
        let old = exchange(port: server.port, "GET /v1/events?device=d HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
        XCTAssertTrue(old.hasPrefix("HTTP/1.1 426"), old)
        XCTAssertTrue(old.lowercased().contains("sec-websocket-version: 13"), old)
        let post = exchange(port: server.port, "POST /v1/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Content-Length: 0\r\n\r\n")
        XCTAssertTrue(post.hasPrefix("HTTP/1.1 405"), post)
    }

    func testServerDropsEverySocketWithACodeOrAbruptlyAndTheBooksBalance() throws {
        let (target, server) = try serve()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        let url = "ws://127.0.0.1:\(server.port)/v1/events?device=d"
        let first = try (1...3).map { try client.open(url, seed: UInt64($0)) }
        first.forEach { client.waitOpen($0) }
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 3 })
        XCTAssertEqual(target.dropEventSockets(.goingAway, reason: "restart"), 3)
        XCTAssertTrue(client.wait { first.allSatisfy { client.report($0) != nil } })
        for id in first {
            XCTAssertEqual(client.report(id), CloseReport(cause: .remote, code: .goingAway, reason: "restart"))
        }
        let second = try (4...5).map { try client.open(url, seed: UInt64($0)) }
        second.forEach { client.waitOpen($0) }
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 2 })
        XCTAssertEqual(target.dropEventSockets(nil), 2)
        XCTAssertTrue(client.wait { second.allSatisfy { client.report($0) != nil } })
        for id in second { XCTAssertEqual(client.report(id)?.cause, .transport) }
        let books = client.onQueue { $0.tally }
        XCTAssertEqual(books.opened, 5)
        XCTAssertEqual(books.closed, ["remote.1001": 3, "lost.1006": 2])
        XCTAssertTrue(client.wait { target.eventSocketCloses.totalClosed == 5 })
        XCTAssertEqual(target.eventSocketCloses.closed, ["local.1001": 3, "aborted.1006": 2])
        XCTAssertEqual(target.eventSocketsOpen, 0)
    }
}
