import Determinism
import XCTest
@testable import WebSocket

final class HandshakeTests: XCTestCase {
    func testAcceptMatchesTheRFCExample() {
        // RFC 6455 §1.3.
        XCTAssertEqual(Handshake.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(SHA1.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined(),
                       "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    func testURLsParseWithDefaultsAndQueries() throws {
        let a = try WebSocketURL(parsing: "wss://example.com/v1/events?device=d1")
        XCTAssertEqual(a, WebSocketURL(secure: true, host: "example.com", port: 443, resource: "/v1/events?device=d1"))
        XCTAssertEqual(a.hostHeader, "example.com")
        let b = try WebSocketURL(parsing: "ws://127.0.0.1:8080?x=1")
        XCTAssertEqual(b.resource, "/?x=1")
        XCTAssertEqual(b.hostHeader, "127.0.0.1:8080")
        XCTAssertEqual(try WebSocketURL(parsing: "ws://[::1]:9/").host, "::1")
        XCTAssertThrowsError(try WebSocketURL(parsing: "http://x/"))
        XCTAssertThrowsError(try WebSocketURL(parsing: "ws://x/#frag"))
        XCTAssertThrowsError(try WebSocketURL(parsing: "ws://x:99999/"))
    }

    func testRequestCarriesCustomHeadersAndRefusesInjection() throws {
        let url = WebSocketURL(secure: false, host: "h", port: 81, resource: "/s?a=b")
        let text = String(decoding: try Handshake.request(url: url, key: "k", headers: [("Authorization", "Bearer t")]),
                          as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("GET /s?a=b HTTP/1.1\r\nHost: h:81\r\n"))
        XCTAssertTrue(text.contains("Sec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\n"))
        XCTAssertTrue(text.hasSuffix("Authorization: Bearer t\r\n\r\n"))
        XCTAssertThrowsError(try Handshake.request(url: url, key: "k", headers: [("X", "a\r\nEvil: 1")]))
    }

    func testKeysAreSeededAndReplayable() {
        var a = SeededRandom(seed: 1), b = SeededRandom(seed: 1)
        XCTAssertEqual(Handshake.newKey(&a), Handshake.newKey(&b))
        XCTAssertEqual(Handshake.newKey(&a).count, 24)
    }

    /// The subprotocol the 101 chose is kept (RFC 7118's `sip`), nil when it named none.
    func testTheChosenSubprotocolIsKept() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Handshake.accept(forKey: key))\r\n"
        for (extra, expected) in [("Sec-WebSocket-Protocol: sip\r\n", "sip" as String?), ("", nil)] {
            var parser = HandshakeResponseParser(key: key)
            let bytes = Array((head + extra + "\r\n").utf8)
            XCTAssertEqual(try bytes.withUnsafeBytes { try parser.append($0) }, [])
            XCTAssertEqual(parser.subprotocol, expected)
        }
    }

    private func answer(_ head: String, key: String = "dGhlIHNhbXBsZSBub25jZQ==") throws -> [UInt8]? {
        var parser = HandshakeResponseParser(key: key)
        let bytes = Array((head + "\r\n\r\n").utf8)
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { raw.deallocate() }
        raw.copyBytes(from: bytes)
        return try parser.append(UnsafeRawBufferPointer(raw))
    }

    func testAnswerIsCheckedForStatusUpgradeConnectionAndAccept() throws {
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        XCTAssertEqual(try answer(good), [])
        XCTAssertThrowsError(try answer("HTTP/1.1 404 Not Found\r\nContent-Length: 0")) {
            XCTAssertEqual($0 as? HandshakeError, .unexpectedStatus(404))
        }
        XCTAssertThrowsError(try answer(good.replacingOccurrences(of: "Upgrade: WebSocket\r\n", with: ""))) {
            XCTAssertEqual($0 as? HandshakeError, .missingUpgradeHeader)
        }
        XCTAssertThrowsError(try answer(good.replacingOccurrences(of: "keep-alive, Upgrade", with: "keep-alive"))) {
            XCTAssertEqual($0 as? HandshakeError, .missingConnectionHeader)
        }
        XCTAssertThrowsError(try answer(good, key: "other")) {
            XCTAssertEqual(($0 as? HandshakeError)?.kind, "wrong_accept")
        }
        XCTAssertThrowsError(try answer("garbage")) {
            XCTAssertEqual(($0 as? HandshakeError)?.kind, "malformed_response")
        }
    }
}
