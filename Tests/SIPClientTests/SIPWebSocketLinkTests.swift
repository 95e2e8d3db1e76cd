import CLinux
import Dispatch
import Foundation
import Locking
@testable import SIPClient
import TestSupport
import WebSocket
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// SIP over WebSocket's framing on the agent's side (RFC 7118 over RFC 6455), without sockets: the Upgrade asks
/// for `sip`, messages wait for the 101, each goes out as one masked text frame, each message in is one SIP
/// message, pings are answered, and every end has its named cause. Then one refused Upgrade on a real socket.
final class SIPWebSocketLinkTests: XCTestCase {
    private static let register = Array("REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/WS a.invalid\r\n\r\n".utf8)

    func testTheUpgradeAsksForTheSIPSubprotocolAndMessagesWaitForTheAnswer() throws {
        var link = try SIPWebSocketLink(host: "127.0.0.1", port: 8080, secure: false, seed: 7)
        let upgrade = String(decoding: link.takeOutbound(), as: UTF8.self)
        XCTAssertTrue(upgrade.hasPrefix("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"), upgrade)
        XCTAssertTrue(upgrade.contains("\r\nSec-WebSocket-Protocol: sip\r\n"), upgrade)
        link.send(Self.register)
        XCTAssertEqual(link.takeOutbound(), [], "nothing is framed before the 101")
        XCTAssertEqual(open(&link, upgrade: upgrade), [.opened])
        let frames = Self.clientFrames(link.takeOutbound())
        XCTAssertEqual(frames, [Frame(opcode: .text, payload: Self.register)], "one message, one text frame")
    }

    func testEachWebSocketMessageIsOneSIPMessageAndPingsAreAnswered() throws {
        var link = try SIPWebSocketLink(host: "127.0.0.1", port: 80, secure: false, seed: 8)
        let upgrade = String(decoding: link.takeOutbound(), as: UTF8.self)
        _ = open(&link, upgrade: upgrade)
        let ok = Array("SIP/2.0 200 OK\r\nVia: SIP/2.0/WS a.invalid\r\n\r\n".utf8)
        var bytes = FrameEncoder.frame(.text, ok)
        bytes += FrameEncoder.frame(.ping, [1, 2])
        bytes += FrameEncoder.frame(.binary, ok)
        XCTAssertEqual(bytes.withUnsafeBytes { link.receive($0) }, [.message(ok), .message(ok)])
        XCTAssertEqual(Self.clientFrames(link.takeOutbound()), [Frame(opcode: .pong, payload: [1, 2])])
    }

    func testAProxysCloseIsNamedByItsCodeAndARefusedUpgradeIsAHandshakeFailure() throws {
        var link = try SIPWebSocketLink(host: "127.0.0.1", port: 80, secure: false, seed: 9)
        let upgrade = String(decoding: link.takeOutbound(), as: UTF8.self)
        _ = open(&link, upgrade: upgrade)
        let close = FrameEncoder.frame(.close, FrameEncoder.closePayload(.goingAway))
        guard case .closed(let ending)? = close.withUnsafeBytes({ link.receive($0) }).first else {
            return XCTFail("a close frame ends the link")
        }
        XCTAssertEqual(ending.cause, "ws_close_1001")
        XCTAssertFalse(ending.refused)
        XCTAssertTrue(ending.counted)

        var refused = try SIPWebSocketLink(host: "127.0.0.1", port: 80, secure: false, seed: 10)
        _ = refused.takeOutbound()
        let answer = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        guard case .closed(let failed)? = answer.withUnsafeBytes({ refused.receive($0) }).first else {
            return XCTFail("a 404 ends the link")
        }
        XCTAssertEqual(failed.cause, "ws_handshake")
        XCTAssertTrue(failed.refused)

        var lost = try SIPWebSocketLink(host: "127.0.0.1", port: 80, secure: false, seed: 11)
        _ = open(&lost, upgrade: String(decoding: lost.takeOutbound(), as: UTF8.self))
        XCTAssertEqual(lost.transportClosed()?.counted, false, "a stream that just ends reconnects, uncounted")
    }

    /// RFC 7118 §4: a 101 that chose no `sip` subprotocol carries no SIP: the link ends as a refused Upgrade
    /// and what waited is never framed.
    func testA101WithoutTheSIPSubprotocolIsARefusedUpgrade() throws {
        var link = try SIPWebSocketLink(host: "127.0.0.1", port: 80, secure: false, seed: 12)
        let upgrade = String(decoding: link.takeOutbound(), as: UTF8.self)
        link.send(Self.register)
        guard case .closed(let ending)? = open(&link, upgrade: upgrade, subprotocol: nil).first else {
            return XCTFail("a 101 without sip ends the link")
        }
        XCTAssertEqual(ending.cause, "ws_handshake")
        XCTAssertTrue(ending.refused)
        XCTAssertEqual(link.takeOutbound(), [])
    }

    /// A ws agent whose proxy answers the Upgrade 404: its REGISTER fails at once by name (`ws_handshake`), no
    /// reconnect loop, no Timer F.
    func testAnAgentWhoseUpgradeIsRefusedFailsByName() throws {
        let server = try RefusingServer()
        let harness = try PoolHarness(proxyPort: server.port)
        defer { harness.close() }
        let agent = try harness.add(SIPAccount(user: "alice", domain: "127.0.0.1", password: "x"), .ws, seed: 3)
        harness.perform(agent) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(agent).contains(.transportFailed(cause: "ws_handshake")) },
                      "\(harness.events(agent))")
        XCTAssertEqual(harness.counters().transportFailures, ["ws_handshake": 1])
        XCTAssertTrue(server.request.withLock { $0 }.contains("Sec-WebSocket-Protocol: sip"))
    }

    // MARK: - Helpers

    /// Answers `upgrade` (the link's request) with a valid 101 for the `sip` subprotocol.
    private func open(_ link: inout SIPWebSocketLink, upgrade: String, subprotocol: String? = "sip")
        -> [SIPWebSocketLink.Outcome] {
        let key = upgrade.components(separatedBy: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }
            .map { String($0.dropFirst("Sec-WebSocket-Key: ".count)) } ?? ""
        let answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Handshake.accept(forKey: key))\r\n"
            + (subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? "") + "\r\n"
        return Array(answer.utf8).withUnsafeBytes { link.receive($0) }
    }

    /// The frames a client wrote, unmasked by a server's parser (which refuses unmasked ones).
    private static func clientFrames(_ bytes: [UInt8]) -> [Frame] {
        var parser = FrameParser(role: .server)
        parser.append(bytes)
        var frames: [Frame] = []
        while let frame = try? parser.next() { frames.append(frame) }
        return frames
    }
}

/// A TCP listener on a free loopback port that answers one HTTP request 404 and closes.
private final class RefusingServer: @unchecked Sendable {
    let port: Int
    let request = Mutex<String>("")
    private let fd: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        fd = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        DispatchQueue.global().async { [self] in serve() }
    }

    private func serve() {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(client, &buffer, buffer.count)
        request.withLock { $0 = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self) }
        let answer = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        close(client)
    }

    deinit { close(fd) }
}
