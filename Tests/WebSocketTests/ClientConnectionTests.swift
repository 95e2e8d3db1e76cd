import Determinism
import XCTest
@testable import WebSocket

/// The client state machine against a hand-played server: no sockets, no clock.
final class ClientConnectionTests: XCTestCase {
    private let url = WebSocketURL(secure: false, host: "127.0.0.1", port: 9000, resource: "/v1/events?device=d1")

    /// A connection past its handshake, and the server-side reader of what it sends.
    private func opened(seed: UInt64 = 7) throws -> (ClientConnection, MessageReader) {
        var client = try ClientConnection(url: url, headers: [("X-Token", "t")], random: SeededRandom(seed: seed))
        let request = String(decoding: client.outbound, as: UTF8.self)
        XCTAssertTrue(request.hasPrefix("GET /v1/events?device=d1 HTTP/1.1\r\n"))
        XCTAssertTrue(request.contains("X-Token: t\r\n"))
        let key = request.components(separatedBy: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }!.dropFirst(19)
        client.didWrite(client.pendingBytes)
        XCTAssertEqual(client.state, .connecting)
        let answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Handshake.accept(forKey: String(key)))\r\n\r\n"
        // The first frame arrives in the same read as the head.
        let events = client.receive(Array(answer.utf8) + FrameEncoder.frame(.text, Array("hi".utf8)))
        XCTAssertEqual(events, [.opened, .message(.text("hi"))])
        XCTAssertEqual(client.state, .open)
        return (client, MessageReader(role: .server))
    }

    private func sent(_ client: inout ClientConnection, _ reader: inout MessageReader) throws -> [Message] {
        reader.append(client.outbound)
        client.didWrite(client.pendingBytes)
        var out: [Message] = []
        while let message = try reader.next() { out.append(message) }
        return out
    }

    func testPingIsAnsweredWithAMaskedPongOfTheSamePayload() throws {
        var (client, reader) = try opened()
        XCTAssertEqual(client.receive(FrameEncoder.frame(.ping, [1, 2, 3])), [])
        XCTAssertEqual(client.outbound[1] & 0x80, 0x80, "client frames are masked")
        XCTAssertEqual(try sent(&client, &reader), [.pong([1, 2, 3])])
    }

    func testServerCloseIsEchoedAndReportedAsRemote() throws {
        var (client, reader) = try opened()
        let close = FrameEncoder.closePayload(.goingAway, reason: "restart")
        let events = client.receive(FrameEncoder.frame(.close, close))
        XCTAssertEqual(events, [.closed(CloseReport(cause: .remote, code: .goingAway, reason: "restart"))])
        XCTAssertEqual(try sent(&client, &reader), [.close(.goingAway, "")])
        XCTAssertTrue(client.isFinished)
        XCTAssertEqual(client.receive(FrameEncoder.frame(.text, [65])), [], "nothing after closed")
    }

    func testLocalCloseWaitsForThePeersCloseAndStillDeliversMessagesMeanwhile() throws {
        var (client, reader) = try opened()
        client.close(.normal, reason: "done")
        XCTAssertEqual(client.state, .closing)
        XCTAssertEqual(try sent(&client, &reader), [.close(.normal, "done")])
        XCTAssertThrowsError(try client.send(text: "late"))
        XCTAssertEqual(client.receive(FrameEncoder.frame(.text, Array("last".utf8))), [.message(.text("last"))])
        let events = client.receive(FrameEncoder.frame(.close, FrameEncoder.closePayload(.normal)))
        XCTAssertEqual(events, [.closed(CloseReport(cause: .local, code: .normal, reason: ""))])
        XCTAssertEqual(client.pendingBytes, 0, "no second close frame")
    }

    func testFragmentedServerMessageIsReassembled() throws {
        var (client, _) = try opened()
        var bytes = FrameEncoder.frame(.binary, [1], fin: false)
        bytes += FrameEncoder.frame(.pong, [9])
        bytes += FrameEncoder.frame(.continuation, [2, 3])
        XCTAssertEqual(client.receive(bytes), [.pong([9]), .message(.binary([1, 2, 3]))])
    }

    func testSendMasksWithTheSeededGeneratorAndSplitsIntoFragments() throws {
        var (a, readerA) = try opened(seed: 3)
        var (b, _) = try opened(seed: 3)
        try a.send(text: "hello world", maxFrameBytes: 4)
        try b.send(text: "hello world", maxFrameBytes: 4)
        XCTAssertEqual(a.outbound, b.outbound, "same seed, same masks")
        XCTAssertEqual(a.outbound[0], 0x01, "first fragment: text without FIN")
        XCTAssertEqual(try sent(&a, &readerA), [.text("hello world")])
        var (c, _) = try opened(seed: 4)
        try c.send(text: "hello world", maxFrameBytes: 4)
        XCTAssertNotEqual(a.outbound, c.outbound)
    }

    func testEachBadServerFrameClosesWithItsCodeAndIsCountedByKind() throws {
        let cases: [([UInt8], String, CloseCode)] = [
            ([0x83, 0x00], "bad_opcode", .protocolError),
            ([0x81, 0x81, 1, 2, 3, 4, 0x40], "masked_server_frame", .protocolError),
            ([0x82, 127, 0, 0, 0, 0, 0x10, 0, 0, 0], "oversize", .messageTooBig),
            ([0x81, 0x02, 0xC3, 0x28], "invalid_utf8", .invalidPayload),
            ([0x09, 0x00], "fragmented_control", .protocolError),
        ]
        var tally = CloseTally()
        for (bytes, kind, code) in cases {
            var (client, reader) = try opened()
            tally.countOpen()
            let events = client.receive(bytes)
            guard case .closed(let report)? = events.last else { return XCTFail("\(kind) not closed") }
            XCTAssertEqual(report.cause.kind, "protocol." + kind)
            XCTAssertEqual(report.code, code)
            XCTAssertEqual(try sent(&client, &reader), [.close(code, kind)], kind)
            tally.count(report)
        }
        XCTAssertEqual(tally.opened, 5)
        XCTAssertEqual(tally.total("protocol."), 5)
        XCTAssertEqual(tally.closed["protocol.invalid_utf8.1007"], 1)
        XCTAssertEqual(tally.closed["protocol.oversize.1009"], 1)
    }

    func testTransportLossIsReportedAs1006OnceAndHandshakeFailuresByKind() throws {
        var (client, _) = try opened()
        XCTAssertEqual(client.transportClosed(), .closed(CloseReport(cause: .transport, code: .abnormal, reason: "")))
        XCTAssertNil(client.transportClosed())
        var fresh = try ClientConnection(url: url, random: SeededRandom(seed: 1))
        let events = fresh.receive(Array("HTTP/1.1 403 Forbidden\r\n\r\n".utf8))
        guard case .closed(let report)? = events.first else { return XCTFail("no close") }
        XCTAssertEqual(report.cause.kind, "handshake.status_403")
        var early = try ClientConnection(url: url, random: SeededRandom(seed: 1))
        XCTAssertEqual(early.transportClosed(), .closed(CloseReport(cause: .handshakeFailed(.closedDuringHandshake),
                                                                     code: .abnormal, reason: "")))
    }

    func testAbortDropsUnsentBytesAndReportsAborted() throws {
        var (client, _) = try opened()
        try client.send(text: "never sent")
        XCTAssertEqual(client.abort()?.cause, .aborted)
        XCTAssertEqual(client.pendingBytes, 0)
        XCTAssertThrowsError(try client.ping([])) {
            XCTAssertEqual($0 as? ClientConnection.SendError, .notOpen(.closed))
        }
    }
}
