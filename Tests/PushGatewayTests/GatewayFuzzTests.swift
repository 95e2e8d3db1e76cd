import Credentials
import Determinism
import Foundation
import HTTPServer
import PushGateway
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Property: whatever bytes a client sends — random HTTP/2 frames, mangled HPACK header blocks, bad pseudo
/// headers, oversized or broken payloads, garbage instead of a preface or a TLS ClientHello — the gateway
/// answers or closes the stream or connection, keeps serving well-formed pushes, and leaks no connection, stream
/// or descriptor. Seeded, so a failure replays from the seed it prints.
final class GatewayFuzzTests: XCTestCase {
    private let deviceToken = String(repeating: "c3", count: 32)

    func testMalformedFramesHeadersAndPayloadsNeverCrashOrLeakConnections() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CALLSTORM_FUZZ_SEED"] ?? "") ?? 0x5EED_CA11
        var random = SeededRandom(splitMix: seed)
        let dir = try TemporaryDirectory.make("gateway-fuzz").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tls = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: "com.example.app")),
                                  sink: CollectingSink())
        let plain = HTTPServer(configuration: HTTPServerConfiguration(maxBodyBytes: 16 * 1024), handler: gateway)
        var tlsConfig = HTTPServerConfiguration()
        tlsConfig.tls = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath)
        let secure = HTTPServer(configuration: tlsConfig, handler: gateway)
        try plain.start()
        try secure.start()
        defer {
            plain.stop()
            secure.stop()
        }
        let socketsBefore = openSocketCount()
        let listBefore = openDescriptorList()
        var answered = 0
        var wellFormed = 0
        for round in 0..<240 {
            let useTLS = round % 12 == 11
            let port = useTLS ? secure.port : plain.port
            guard let socket = try? LoopbackSocket(port: port) else { return XCTFail("cannot connect (seed \(seed))") }
            let (bytes, expectsAnswer) = useTLS ? (randomBytes(&random, max: 600), false) : conversation(&random)
            if expectsAnswer { wellFormed += 1 }
            try? socket.send(bytes)
            let reply = socket.read(timeoutMillis: expectsAnswer ? 1000 : 15, until: expectsAnswer ? {
                Self.hasHeadersFrame($0, stream: 1)
            } : nil)
            if expectsAnswer {
                if Self.hasHeadersFrame(reply, stream: 1) {
                    answered += 1
                } else {
                    XCTFail("round \(round): a well-formed push got no answer (seed \(seed))")
                }
            }
            if random.next() % 2 == 0 { socket.resetOnClose() }
            socket.close()
        }
        XCTAssertGreaterThan(wellFormed, 10, "the generator should mix in well-formed pushes")
        XCTAssertEqual(answered, wellFormed)
        // Still serving, and every connection and stream accounted for.
        XCTAssertTrue(plain.isRunning && secure.isRunning)
        XCTAssertTrue(eventually { plain.stats.connectionsOpen == 0 && secure.stats.connectionsOpen == 0 },
                      "connections left open: \(plain.stats.connectionsOpen) + \(secure.stats.connectionsOpen) "
                        + "(seed \(seed))")
        XCTAssertTrue(eventually { plain.stats.streamsOpen == 0 }, "streams left open: \(plain.stats.streamsOpen)")
        XCTAssertTrue(eventually { openSocketCount() <= socketsBefore },
                      "sockets: \(socketsBefore) before, \(openSocketCount()) after (seed \(seed))\n"
                        + "before: \(listBefore)\nafter: \(openDescriptorList())")
        XCTAssertGreaterThan(plain.stats.http2ProtocolErrors, 0, "the generator should break the protocol")
        let run = try ExternalTool.run("curl", ["-sS", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}",
                                                "-H", "authorization: bearer \(try validJWT())",
                                                "-H", "apns-push-type: voip", "-H", "apns-topic: com.example.app.voip",
                                                "-d", "{}", "http://127.0.0.1:\(plain.port)/3/device/\(deviceToken)"])
        XCTAssertEqual(run.stdout, "200", run.stderr)

        XCTAssertGreaterThan(secure.stats.tlsHandshakeFailures, 0)
    }

    // MARK: - Generating conversations

    /// Bytes for one connection, and whether they end in a well-formed push that must get an answer.
    private func conversation(_ random: inout SeededRandom) -> ([UInt8], Bool) {
        var out: [UInt8] = []
        switch random.next() % 10 {
        case 0:
            return (randomBytes(&random, max: 300), false)  // no preface at all: HTTP/1.1 parser gets garbage
        case 1:
            out += Array("PRI * HTTP/2.0\r\n\r\nSM\r\n".utf8)  // a preface cut short, then garbage
            out += randomBytes(&random, max: 100)
            return (out, false)
        default:
            break
        }
        out += Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        out += frame(type: 4, flags: 0, stream: 0, payload: [])
        let mode = random.next() % 4
        if mode == 0 {
            // A clean push on stream 1 first, then noise on other streams.
            out += pushFrames(stream: 1, headers: validHeaders(), body: Array(#"{"uuid":"x"}"#.utf8))
            return (out, true)
        }
        for _ in 0..<(1 + random.next() % 6) {
            switch random.next() % 5 {
            case 0:
                out += frame(type: UInt8(random.next() % 12), flags: UInt8(truncatingIfNeeded: random.next()),
                             stream: UInt32(random.next() % 8), payload: randomBytes(&random, max: 64))
            case 1:
                var headers = validHeaders()
                mutate(&headers, &random)
                out += pushFrames(stream: UInt32(1 + 2 * (random.next() % 4)), headers: headers,
                                  body: randomBody(&random))
            case 2:
                // A header block of random bytes (HPACK garbage).
                out += frame(type: 1, flags: 0x5, stream: 3, payload: randomBytes(&random, max: 80))
            case 3:
                // A frame header that promises more than it carries, or a frame far over the maximum size.
                let length = random.next() % 2 == 0 ? 20_000 : 1 << 23
                out += [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), 0, 0, 0, 0, 0, 1]
                out += randomBytes(&random, max: 40)
            default:
                // WINDOW_UPDATE, RST_STREAM, PRIORITY, PING, GOAWAY with random contents and lengths.
                let types: [UInt8] = [8, 3, 2, 6, 7]
                out += frame(type: types[Int(random.next() % 5)], flags: 0, stream: UInt32(random.next() % 4),
                             payload: randomBytes(&random, max: 12))
            }
        }
        return (out, false)
    }

    private func validHeaders() -> [(String, String)] {
        [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(deviceToken)"), (":authority", "gw"),
         ("authorization", "bearer \((try? validJWT()) ?? "")"), ("apns-push-type", "voip"),
         ("apns-topic", "com.example.app.voip")]
    }

    private func mutate(_ headers: inout [(String, String)], _ random: inout SeededRandom) {
        let index = Int(random.next() % UInt64(headers.count))
        switch random.next() % 8 {
        case 0: headers.remove(at: index)
        case 1: headers[index].0 = headers[index].0.uppercased()
        case 2: headers.append(headers[index])
        case 3: headers[index].1 = String(repeating: "v", count: Int(random.next() % 70_000))
        case 4: headers.append((":bogus", "1"))
        case 5: headers[index].1 = String(decoding: randomBytes(&random, max: 30), as: UTF8.self)
        case 6: headers.append(("connection", "keep-alive"))
        default: headers.insert(headers.removeLast(), at: 0)  // a regular header before the pseudo headers
        }
    }

    private func randomBody(_ random: inout SeededRandom) -> [UInt8] {
        switch random.next() % 4 {
        case 0: return []
        case 1: return Array(repeating: UInt8(ascii: "x"), count: 20_000)
        case 2: return randomBytes(&random, max: 200)
        default: return Array(#"{"a":[1,2,{"b":"#.utf8)
        }
    }

    private func randomBytes(_ random: inout SeededRandom, max: Int) -> [UInt8] {
        (0..<Int(random.next() % UInt64(max + 1))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    // MARK: - HTTP/2 encoding by hand (no client library, so anything can be sent)

    private func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF),
                UInt8(stream & 0xFF)] + payload
    }

    /// HEADERS (literal fields without indexing, split into CONTINUATION frames past 16 KiB) then DATA.
    private func pushFrames(stream: UInt32, headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in headers {
            block.append(0)
            hpackString(Array(name.utf8), into: &block)
            hpackString(Array(value.utf8), into: &block)
        }
        var out: [UInt8] = []
        let chunks = stride(from: 0, to: max(block.count, 1), by: 16_384).map {
            Array(block[$0..<min($0 + 16_384, block.count)])
        }
        for (i, chunk) in chunks.enumerated() {
            let last = i == chunks.count - 1
            out += frame(type: i == 0 ? 1 : 9, flags: last ? 0x4 : 0, stream: stream, payload: chunk)
        }
        let pieces = stride(from: 0, to: max(body.count, 1), by: 16_384).map {
            Array(body[$0..<min($0 + 16_384, body.count)])
        }
        for (i, piece) in pieces.enumerated() {
            out += frame(type: 0, flags: i == pieces.count - 1 ? 0x1 : 0, stream: stream, payload: piece)
        }
        return out
    }

    private func hpackString(_ bytes: [UInt8], into block: inout [UInt8]) {
        var length = bytes.count
        if length < 127 {
            block.append(UInt8(length))
        } else {
            block.append(127)
            length -= 127
            while length >= 128 {
                block.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            block.append(UInt8(length))
        }
        block += bytes
    }

    /// Whether `bytes` (server output after its preface) holds a HEADERS frame on `stream`.
    static func hasHeadersFrame(_ bytes: [UInt8], stream: UInt32) -> Bool {
        var i = 0
        while i + 9 <= bytes.count {
            let length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            let id = UInt32(bytes[i + 5] & 0x7F) << 24 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 8
                | UInt32(bytes[i + 8])
            if bytes[i + 3] == 1 && id == stream { return true }
            i += 9 + length
        }
        return false
    }

    private var cachedJWT: String?

    private func validJWT() throws -> String {
        if let cachedJWT { return cachedJWT }
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let token = signer.token(issuedAt: Int64(Date().timeIntervalSince1970))!
        cachedJWT = token
        return token
    }
}
