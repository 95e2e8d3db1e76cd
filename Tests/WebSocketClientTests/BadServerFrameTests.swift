import Foundation
import HTTPServer
import Locking
import WebSocket
import WebSocketClient
import XCTest

/// A server that breaks RFC 6455 on purpose, by path: on open it sends the bad bytes; `/good` echoes.
private final class HostileSession: WebSocketSession {
    let serverReports = Mutex<[String: CloseReport]>([:])
    let echoed = Mutex<[String]>([])

    func opened(_ peer: WebSocketPeer) {
        let path = peer.request.path
        switch path {
        case "/bad-opcode": peer.send(raw: [0x83, 0x00])
        case "/masked": peer.send(raw: [0x81, 0x81, 1, 2, 3, 4, 0x40])
        case "/oversize": peer.send(raw: [0x82, 127, 0, 0, 0, 0, 0x10, 0, 0, 0])
        case "/utf8": peer.send(raw: [0x81, 0x02, 0xC3, 0x28])
        default: break
        }
    }

    func received(_ message: Message, from peer: WebSocketPeer) {
        if case .text(let text) = message {
            peer.send(text: "echo:" + text)
            echoed.withLock { $0.append(text) }
        }
    }

    func closed(_ peer: WebSocketPeer, _ report: CloseReport) {
        serverReports.withLock { $0[peer.request.path] = report }
    }
}

final class BadServerFrameTests: XCTestCase {
    /// The hostile server, a client pool, and one open socket on `/good` (which echoes).
    private func serveWithAGoodSocket() throws -> (HostileSession, HTTPServer, ClientHarness, UInt64) {
        let session = HostileSession()
        let server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            respond(WebSocketUpgrade.accept(request, session: session))
        })
        try server.start()
        let client = ClientHarness()
        let good = try client.open("ws://127.0.0.1:\(server.port)/good")
        client.waitOpen(good)
        return (session, server, client, good)
    }

    func testEachBadFrameClosesOnlyItsSocketWithTheRightCodeAndIsCounted() throws {
        let (session, server, client, good) = try serveWithAGoodSocket()
        defer { client.shutDown(); server.stop() }
        let cases: [(String, String, CloseCode)] = [
            ("/bad-opcode", "bad_opcode", .protocolError), ("/masked", "masked_server_frame", .protocolError),
            ("/oversize", "oversize", .messageTooBig), ("/utf8", "invalid_utf8", .invalidPayload),
        ]
        var ids: [UInt64] = []
        for (path, _, _) in cases { ids.append(try client.open("ws://127.0.0.1:\(server.port)\(path)")) }
        XCTAssertTrue(client.wait { ids.allSatisfy { client.report($0) != nil } })
        for ((path, kind, code), id) in zip(cases, ids) {
            XCTAssertEqual(client.report(id)?.cause.kind, "protocol." + kind, path)
            XCTAssertEqual(client.report(id)?.code, code, path)
        }
        // The server got each close frame with that code (it hears the client's close first).
        XCTAssertTrue(client.wait { session.serverReports.withLock { $0.count } == 4 })
        for (path, _, code) in cases {
            XCTAssertEqual(session.serverReports.withLock { $0[path] }?.code, code, path)
        }
        // Nothing else lost: the good socket still talks.
        XCTAssertTrue(client.onQueue { $0.send(good, text: "still here") })
        XCTAssertTrue(client.wait { client.texts(good).contains("echo:still here") })
        XCTAssertNil(client.report(good))
        let tally = client.onQueue { $0.tally }
        XCTAssertEqual(tally.total("protocol."), 4)
        XCTAssertEqual(tally.closed["protocol.oversize.1009"], 1)
        XCTAssertEqual(tally.closed["protocol.invalid_utf8.1007"], 1)
        XCTAssertEqual(tally.opened - tally.totalClosed, 1, "sockets opened = closed + open")
    }

    func testAPausedSocketReadsNothingUntilItResumes() throws {
        let (session, server, client, good) = try serveWithAGoodSocket()
        defer { client.shutDown(); server.stop() }
        client.onQueue { $0.setReading(good, paused: true) }
        XCTAssertTrue(client.onQueue { $0.send(good, text: "stalled") }, "a paused socket still writes")
        XCTAssertTrue(client.wait { session.echoed.withLock { $0 } == ["stalled"] })
        // The echo went out before this check, into the client's kernel buffer, which a paused socket leaves alone.
        XCTAssertTrue(client.onQueue { _ in client.texts(good).isEmpty })
        client.onQueue { $0.setReading(good, paused: false) }
        XCTAssertTrue(client.wait { client.texts(good) == ["echo:stalled"] })
        XCTAssertNil(client.report(good))
    }

    func testClientFramesMustBeMaskedAtTheServer() throws {
        let session = HostileSession()
        let server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            respond(WebSocketUpgrade.accept(request, session: session))
        })
        try server.start()
        defer { server.stop() }
        // A raw client: a valid Upgrade, then an unmasked text frame.
        let fd = connectLoopback(server.port)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let head = "GET /unmasked HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        sendAll(fd, Array(head.utf8))
        var got: [UInt8] = []
        receive(fd, into: &got) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        let answerHead = String(decoding: got, as: UTF8.self)
        XCTAssertTrue(answerHead.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), answerHead)
        sendAll(fd, [0x81, 0x01, 0x41])
        let headEnd = (0..<(got.count - 3)).first { Array(got[$0..<($0 + 4)]) == [13, 10, 13, 10] }! + 4
        got = Array(got[headEnd...])
        receive(fd, into: &got) { $0.count >= 4 }
        XCTAssertEqual(Array(got.prefix(4)), [0x88, 0x02 + UInt8("unmasked_client_frame".utf8.count), 0x03, 0xEA])
        let deadline = Date().addingTimeInterval(10)
        while session.serverReports.withLock({ $0["/unmasked"] }) == nil && Date() < deadline { usleep(2_000) }
        XCTAssertEqual(session.serverReports.withLock { $0["/unmasked"] }?.cause.kind, "protocol.unmasked_client_frame")
    }
}
