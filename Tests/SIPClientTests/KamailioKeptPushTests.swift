import CLinux
import Foundation
import Locking
import SIP
import SIPClient
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The shipped configuration's kept push connection (-A PUSH_KEEP and PUSH_KEEP_TOPIC, route[PUSHKEPT]): a VoIP
/// push to the kept topic goes over the task worker's one connection with every header the gateway requires, the
/// constant ones carried by the connection; a push to any other topic still gets a connection of its own.
final class KamailioKeptPushTests: XCTestCase {
    func testPushesToTheKeptTopicShareOneConnectionAndCarryTheGatewaysHeaders() throws {
        let gateway = try KeepingPushCatcher()
        defer { gateway.stop() }
        let url = "http://127.0.0.1:\(gateway.port)"
        let lines = "authorization: bearer tok.en\\r\\napns-push-type: voip\\r\\napns-topic: com.example.app.voip"
            + "\\r\\napns-priority: 10"
        // One task worker, so every push leaves from the same process (each keeps its own connection).
        let kamailio = try KamailioProcess(defines: [
            "WITH_PUSH", "PUSH_URL=\"\(url)\"", "PUSH_JWT=\"tok.en\"", "PUSH_WORKERS=1",
            "PUSH_KEEP=\"push=>\(url);useragent=\\\"callstorm\\r\\n\(lines)\\\"\"",
            "PUSH_KEEP_TOPIC=\"com.example.app.voip\"",
        ])
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), .udp, seed: 6)
        harness.perform(alice) { $0.register(now: $1) }
        let sleepers = [("bob", "com.example.app"), ("carol", "com.other.app"), ("dave", "com.example.app")]
        var tokens: [String] = []
        for (i, (user, bundle)) in sleepers.enumerated() {
            let token = String(repeating: String(format: "%02x", i + 1), count: 32)
            tokens.append(token)
            let push = PushContactParameters.apnsVoIP(token: token, team: "ABCD123456", bundle: bundle)
            let account = SIPAccount(user: user, domain: domain, password: "callstorm", push: push)
            let agent = try harness.add(account, .udp, seed: UInt64(7 + i))
            harness.perform(agent) { $0.register(now: $1) }
            XCTAssertTrue(eventually(10) { harness.events(agent).contains(.registered(expires: 600)) })
            harness.close(agent)
        }
        for (i, (user, _)) in sleepers.enumerated() {
            harness.perform(alice) { _ = $0.invite("sip:\(user)@\(domain)", now: $1) }
            XCTAssertTrue(eventually(10) { gateway.requests().count == i + 1 }, kamailio.log.suffix(2000).description)
        }
        let pushes = gateway.requests()
        for (push, token) in zip(pushes, tokens) {
            XCTAssertTrue(push.request.hasPrefix("POST /3/device/\(token) HTTP/1.1"), push.request)
            let lower = push.request.lowercased()
            XCTAssertTrue(lower.contains("\r\nauthorization: bearer tok.en\r\n"), push.request)
            XCTAssertTrue(lower.contains("\r\napns-push-type: voip\r\n"), push.request)
            XCTAssertTrue(lower.contains("\r\napns-priority: 10\r\n"), push.request)
            let contentTypes = lower.components(separatedBy: "\r\n").filter { $0.hasPrefix("content-type:") }
            XCTAssertEqual(contentTypes, ["content-type: application/json"], push.request)
        }
        XCTAssertEqual(pushes.map(\.connection), [1, 2, 1], "bob's and dave's pushes on one kept connection")
        XCTAssertTrue(pushes[0].request.lowercased().contains("\r\napns-topic: com.example.app.voip\r\n"))
        XCTAssertFalse(pushes[0].request.lowercased().contains("connection: close"), pushes[0].request)
        XCTAssertTrue(pushes[1].request.lowercased().contains("\r\napns-topic: com.other.app.voip\r\n"))
        XCTAssertTrue(pushes[1].request.lowercased().contains("\r\nconnection: close\r\n"), pushes[1].request)
    }
}

/// An HTTP/1.1 listener that keeps each connection for as many requests as the client sends, answering 200 to
/// each: records every request with the number of the connection (from 1) it came on.
final class KeepingPushCatcher: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[(connection: Int, request: String)]>([])
    private let stopping = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        listener = clinux_listen_tcp("127.0.0.1", 0, 16)
        guard listener >= 0 else { throw KamailioProcess.Failure.noFreePort }
        port = Int(clinux_local_port(listener))
        let thread = Thread { [self] in accept() }
        thread.start()
    }

    func requests() -> [(connection: Int, request: String)] { seen.withLock { $0 } }

    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
        Glibc.close(listener)
    }

    private func accept() {
        var count = 0
        while !stopping.withLock({ $0 }) {
            let fd = clinux_accept(listener)
            if fd < 0 {
                usleep(2_000)
                continue
            }
            count += 1
            let number = count
            Thread { [self] in serve(fd, number) }.start()
        }
        done.signal()
    }

    /// Reads requests (a head and its Content-Length body each) off a non-blocking socket until the peer closes
    /// it or the catcher stops.
    private func serve(_ fd: Int32, _ number: Int) {
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.withLock({ $0 }) {
            if let (request, used) = Self.request(in: bytes) {
                bytes.removeFirst(used)
                seen.withLock { $0.append((number, request)) }
                let reply = "HTTP/1.1 200 OK\r\napns-id: 00000000-0000-0000-0000-000000000001\r\n"
                    + "Content-Length: 0\r\n\r\n"
                _ = Array(reply.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                continue
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return }
            if n > 0 { bytes += buffer[..<n] } else { usleep(2_000) }
        }
    }

    /// The first whole request in `bytes` and the bytes it takes, or nil while it is incomplete.
    private static func request(in bytes: [UInt8]) -> (String, Int)? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let length = text[..<end.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
        let headBytes = text[..<end.upperBound].utf8.count
        guard bytes.count >= headBytes + length else { return nil }
        return (String(decoding: bytes[..<(headBytes + length)], as: UTF8.self), headBytes + length)
    }
}
