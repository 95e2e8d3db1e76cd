import CLinux
import Foundation
import SIP
import SIPClient
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Malformed SIP over real sockets: an agent counts each by kind, answers 400 where a response is due, and goes
/// on working (a call through Kamailio after UDP garbage; a valid request on its new TCP connection after a
/// stream that lost its framing).
final class MalformedInputTests: XCTestCase {
    private static let missingCallID = "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKbad1;rport\r\nFrom: <sip:x@127.0.0.1>;tag=1\r\n"
        + "To: <sip:bob@127.0.0.1>\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"

    func testUDPAgentCountsMalformedDatagramsAnswers400AndStillCompletesACallThroughKamailio() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), .udp, seed: 3)
        let bob = try harness.add(SIPAccount(user: "bob", domain: domain, password: "callstorm"), .udp, seed: 4)
        let port = try XCTUnwrap(harness.localPort(bob))

        let sender = try LoopbackDatagram()
        defer { sender.close() }
        for garbage in ["\u{0}\u{1}\u{2}", "HELLO WORLD\r\n\r\n", "INVITE sip:a@b SIP/3.0\r\n\r\n",
                        "SIP/2.0 999 Odd\r\n\r\n", "INVITE sip:a@b SIP/2.0\r\nno colon\r\n\r\n",
                        "INVITE sip:a@b SIP/2.0\r\nContent-Length: 99\r\n\r\nshort", Self.missingCallID] {
            sender.send(garbage, to: port)
        }
        let reply = sender.receive()
        XCTAssertTrue(reply.hasPrefix("SIP/2.0 400 "), reply)
        XCTAssertTrue(eventually(5) { harness.counters().malformed.values.reduce(0, +) == 7 },
                      "\(harness.counters().malformed)")
        XCTAssertEqual(harness.counters().malformed, [
            "truncated_head": 1, "bad_start_line": 1, "bad_version": 1, "bad_status": 1, "bad_header": 1,
            "truncated_body": 1, "missing_header": 1,
        ])
        XCTAssertEqual(harness.counters().responsesSent[400], 1)

        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(bob) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(bob).contains(.registered(expires: 600)) })
        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(bob).contains(.incoming(call: call, from: "sip:alice@\(domain)"))
        })
        harness.perform(bob) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.answered(call: call)) })
    }

    func testTCPAgentCountsAStreamThatLostFramingReconnectsAndAnswersOnTheNewConnection() throws {
        let listener = clinux_listen_tcp("127.0.0.1", 0, 4)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { Glibc.close(listener) }
        let harness = try PoolHarness(proxyPort: Int(clinux_local_port(listener)))
        defer { harness.close() }
        let agent = try harness.add(SIPAccount(user: "bob", domain: "127.0.0.1", password: "p"), .tcp, seed: 5)
        let first = try XCTUnwrap(accept(listener))
        defer { Glibc.close(first) }
        // A request missing Call-ID is answered 400 on the same connection; then a head without Content-Length
        // breaks the framing (§18.3), and the agent opens a new connection.
        write(first, Self.missingCallID.replacingOccurrences(of: "UDP", with: "TCP"))
        XCTAssertTrue(read(first).hasPrefix("SIP/2.0 400 "))
        write(first, "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:9;branch=z9hG4bKx\r\n\r\n")
        let second = try XCTUnwrap(accept(listener))
        defer { Glibc.close(second) }
        XCTAssertEqual(harness.counters().malformed, ["missing_header": 1, "missing_content_length": 1])
        let options = "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:9;branch=z9hG4bKok\r\n"
            + "From: <sip:x@127.0.0.1>;tag=1\r\nTo: <sip:bob@127.0.0.1>\r\nCall-ID: ok-1\r\nCSeq: 1 OPTIONS\r\n"
            + "Content-Length: 0\r\n\r\n"
        write(second, options)
        XCTAssertTrue(read(second).hasPrefix("SIP/2.0 200 "))
        XCTAssertEqual(harness.counters().requestsReceived["OPTIONS"], 1)
        _ = agent
    }

    private func accept(_ listener: Int32) -> Int32? {
        var fd: Int32 = -1
        _ = eventually(10) {
            fd = clinux_accept(listener)
            return fd >= 0
        }
        return fd >= 0 ? fd : nil
    }

    private func write(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What arrives on a non-blocking socket within 10 s, once something has.
    private func read(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var n = -1
        _ = eventually(10) {
            n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n > 0
        }
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
    }
}

/// A UDP socket on loopback that sends to a port and reads one reply (1 s timeout each try, 10 tries).
final class LoopbackDatagram {
    let fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String, to port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = Array(text.utf8).withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    func receive() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<10 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return String(decoding: buffer[..<n], as: UTF8.self) }
        }
        return ""
    }

    func close() { Glibc.close(fd) }
}
