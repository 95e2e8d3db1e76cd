import Determinism
import Foundation

/// Why an opening handshake failed (RFC 6455 §4.1–4.2).
public enum HandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURL(String, String)
    /// A custom header whose name or value would break the request (CR, LF, or an empty name).
    case invalidHeader(String)
    /// The answer's head passed the size limit without ending.
    case responseTooLong(limit: Int)
    case malformedResponse(String)
    /// Anything but 101 Switching Protocols.
    case unexpectedStatus(Int)
    case missingUpgradeHeader
    case missingConnectionHeader
    case wrongAccept(expected: String, received: String?)
    /// The server closed the connection before its answer was complete.
    case closedDuringHandshake

    /// A stable counter key per kind.
    public var kind: String {
        switch self {
        case .invalidURL: return "invalid_url"
        case .invalidHeader: return "invalid_header"
        case .responseTooLong: return "response_too_long"
        case .malformedResponse: return "malformed_response"
        case .unexpectedStatus(let status): return "status_\(status)"
        case .missingUpgradeHeader: return "missing_upgrade"
        case .missingConnectionHeader: return "missing_connection"
        case .wrongAccept: return "wrong_accept"
        case .closedDuringHandshake: return "closed_during_handshake"
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let why): return "invalid WebSocket URL \(url): \(why)"
        case .invalidHeader(let name): return "header \(name) has an empty name or a CR/LF; remove it"
        case .responseTooLong(let limit): return "handshake answer longer than \(limit) bytes"
        case .malformedResponse(let line): return "handshake answer is not HTTP/1.1: \(line)"
        case .unexpectedStatus(let status):
            return "server answered \(status) instead of 101 Switching Protocols (is the path a WebSocket endpoint?)"
        case .missingUpgradeHeader: return "101 answer lacks Upgrade: websocket"
        case .missingConnectionHeader: return "101 answer lacks Connection: Upgrade"
        case .wrongAccept(let expected, let received):
            return "Sec-WebSocket-Accept is \(received ?? "missing"), expected \(expected)"
        case .closedDuringHandshake: return "server closed the connection during the handshake"
        }
    }
}

/// The opening handshake's pieces, shared by the client and the server side.
public enum Handshake {
    /// The GUID RFC 6455 §1.3 appends to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + GUID)).
    public static func accept(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// A Sec-WebSocket-Key: 16 bytes from the seeded generator, base64 (§4.1 asks for a random nonce; a seeded
    /// one keeps runs replayable, and nothing here relies on its secrecy).
    public static func newKey(_ random: inout SeededRandom) -> String {
        let a = random.next(), b = random.next()
        var bytes: [UInt8] = []
        appendBigEndian(a, to: &bytes)
        appendBigEndian(b, to: &bytes)
        return Data(bytes).base64EncodedString()
    }

    /// The client's Upgrade request. `headers` come after the required ones (authorization, cookies, an
    /// Origin, a subprotocol list); a name or value with CR or LF is refused rather than sent.
    public static func request(url: WebSocketURL, key: String, headers: [(name: String, value: String)])
        throws(HandshakeError) -> [UInt8] {
        var text = "GET \(url.resource) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\n"
        text += "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers {
            // By bytes: "\r\n" is one Character in Swift, so a Character test would miss it.
            guard !name.isEmpty, !name.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 58 }),
                  !value.utf8.contains(where: { $0 == 13 || $0 == 10 }) else { throw .invalidHeader(name) }
            text += "\(name): \(value)\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    /// Whether a comma-separated header value holds `token` (any case), as Connection: keep-alive, Upgrade may.
    public static func hasToken(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token }
    }
}

/// Reads the server's answer to the Upgrade request until its head is complete, then checks it (§4.1: status
/// 101, Upgrade: websocket, Connection: Upgrade, the expected Sec-WebSocket-Accept). Bytes after the head are
/// the first frames and are handed back.
public struct HandshakeResponseParser: Sendable {
    public static let maxHeadBytes = 16 * 1024
    private let expectedAccept: String
    private var buffer: [UInt8] = []
    /// The answer's Sec-WebSocket-Protocol (the subprotocol the server chose, §4.2.2), nil when it named none.
    public private(set) var subprotocol: String?

    public init(key: String) {
        expectedAccept = Handshake.accept(forKey: key)
    }

    /// The bytes after the head once the answer is complete and valid, nil while more is needed.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(HandshakeError) -> [UInt8]? {
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        guard let end = Self.headEnd(buffer, from: searchFrom) else {
            if buffer.count > Self.maxHeadBytes { throw .responseTooLong(limit: Self.maxHeadBytes) }
            return nil
        }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let rest = Array(buffer[(end + 4)...])
        buffer = []
        subprotocol = try check(head)
        return rest
    }

    private static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = start
        while i + 3 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// Checks the answer's head; returns its Sec-WebSocket-Protocol.
    private func check(_ head: String) throws(HandshakeError) -> String? {
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
            throw .malformedResponse(String(lines[0].prefix(80)))
        }
        guard code == 101 else { throw .unexpectedStatus(code) }
        var upgrade = false, connection = false
        var accept: String?
        var chosen: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "upgrade": upgrade = upgrade || value.lowercased() == "websocket"
            case "connection": connection = connection || Handshake.hasToken(value, "upgrade")
            case "sec-websocket-accept": accept = value
            case "sec-websocket-protocol": chosen = value
            default: break
            }
        }
        guard upgrade else { throw .missingUpgradeHeader }
        guard connection else { throw .missingConnectionHeader }
        guard accept == expectedAccept else { throw .wrongAccept(expected: expectedAccept, received: accept) }
        return chosen
    }
}
