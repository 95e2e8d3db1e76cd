import Foundation
import Locking
import SIP
import SIPClient
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The pool's datagram filter, the seam a run's chaos acts through: what it drops is never sent or never read, what
/// it delays goes later, and the agent's own timers recover a lost request (RFC 3261 Timer E).
final class DatagramFilterTests: XCTestCase {
    func testTheStartLineLabelIsTheMethodOrTheStatusCode() {
        XCTAssertEqual(SIPStartLine.label(Array("INVITE sip:bob@x SIP/2.0\r\nVia: …".utf8)), "INVITE")
        XCTAssertEqual(SIPStartLine.label(Array("SIP/2.0 180 Ringing\r\n".utf8)), "180")
        XCTAssertEqual(SIPStartLine.label(Array("SIP/2.0 20 OK\r\n".utf8)), "?")
        XCTAssertEqual(SIPStartLine.label(Array("\r\n\r\n".utf8)), "?")
        XCTAssertEqual(SIPStartLine.label(Array("hello".utf8)), "?")
        XCTAssertEqual(SIPStartLine.label(Array("invite sip:x SIP/2.0".utf8)), "?", "methods are upper case")
    }

    func testTheCallIDIsReadOffTheHeadInEitherFormAndAnyCase() {
        XCTAssertEqual(SIPStartLine.callID(Array("REGISTER sip:x SIP/2.0\r\nVia: a\r\nCall-ID: r1@h \r\n\r\n".utf8)),
                       "r1@h")
        XCTAssertEqual(SIPStartLine.callID(Array("SIP/2.0 200 OK\r\ni:c2\r\n\r\n".utf8)), "c2")
        XCTAssertEqual(SIPStartLine.callID(Array("BYE sip:x SIP/2.0\r\nCALL-id :\tc3\r\n".utf8)), "c3")
        XCTAssertNil(SIPStartLine.callID(Array("OPTIONS sip:x SIP/2.0\r\n\r\nCall-ID: in-the-body\r\n".utf8)))
        XCTAssertNil(SIPStartLine.callID(Array("\r\n\r\n".utf8)))
        XCTAssertNil(SIPStartLine.callID(Array("SIP/2.0 200 OK\r\nCall-Info: x\r\nCall-ID:\r\n".utf8)))
    }

    func testALostREGISTERIsSentAgainByTimerEAndADroppedReadNeverReachesTheAgent() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        let seen = Mutex<[String]>([])
        let dropReads = Mutex(true)
        let callIDs = Mutex<[String?]>([])
        harness.queue.sync {
            harness.pool.datagramFilter = { _, sending, label, datagram in
                seen.withLock { $0.append((sending ? "sent " : "read ") + label) }
                if sending { callIDs.withLock { $0.append(SIPStartLine.callID(datagram)) } }
                if !sending { return dropReads.withLock { $0 } ? .drop : .pass }
                return seen.withLock { $0.filter { $0 == "sent REGISTER" }.count } == 1 ? .drop : .pass
            }
        }
        let agent = try harness.add(SIPAccount(user: "alice", domain: "127.0.0.1", password: "callstorm"), .udp,
                                    seed: 5)
        harness.perform(agent) { $0.register(now: $1) }
        // The first REGISTER vanished; the one that arrives is Timer E's retransmission.
        let first = proxy.receive(timeoutMillis: 5_000)
        XCTAssertEqual(first.map { SIPStartLine.label($0.bytes) }, "REGISTER")
        XCTAssertEqual(harness.counters().retransmissionsSent["REGISTER"], 1)
        XCTAssertEqual(seen.withLock { $0 }.prefix(2), ["sent REGISTER", "sent REGISTER"])
        let sentIDs = callIDs.withLock { $0 }.prefix(2)
        XCTAssertEqual(sentIDs.count, 2)
        XCTAssertNotNil(sentIDs.first ?? nil, "the filter reads the Call-ID off the datagram it is handed")
        XCTAssertEqual(Set(sentIDs).count, 1, "a retransmission: the same Call-ID")

        // Garbage read while reads are dropped is never parsed; once they pass it is counted as malformed.
        let agentPort = try XCTUnwrap(harness.localPort(agent))
        proxy.send(Array("hello".utf8), toPort: agentPort)
        XCTAssertTrue(eventually { seen.withLock { $0.contains("read ?") } })
        XCTAssertTrue(harness.counters().malformed.isEmpty)
        dropReads.withLock { $0 = false }
        proxy.send(Array("hello".utf8), toPort: agentPort)
        XCTAssertTrue(eventually { !harness.counters().malformed.isEmpty }, "\(harness.counters())")
    }

    func testThePortProbeTellsABoundUDPPortFromAFreeOne() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        XCTAssertTrue(udpPortIsBound(proxy.port))
        XCTAssertFalse(udpPortIsBound(try XCTUnwrap(KamailioProcess.freePort())))
    }

    func testADelayedDatagramIsStillSent() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        harness.queue.sync {
            harness.pool.datagramFilter = { _, sending, _, _ in sending ? .delay(nanos: 30_000_000) : .pass }
        }
        let agent = try harness.add(SIPAccount(user: "bob", domain: "127.0.0.1", password: "callstorm"), .udp,
                                    seed: 6)
        harness.perform(agent) { $0.register(now: $1) }
        XCTAssertEqual(proxy.receive(timeoutMillis: 5_000).map { SIPStartLine.label($0.bytes) }, "REGISTER")
    }
}

/// A UDP socket on a loopback port standing in for the proxy: reads what agents send, sends what the test says.
final class UDPProbe {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// The next datagram, or nil when none came within `timeoutMillis`.
    func receive(timeoutMillis: Int) -> (bytes: [UInt8], port: Int)? {
        var timeout = timeval(tv_sec: timeoutMillis / 1000, tv_usec: Int((timeoutMillis % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length)
                }
            }
        }
        return n > 0 ? (Array(buffer[..<n]), Int(UInt16(bigEndian: from.sin_port))) : nil
    }

    func send(_ bytes: [UInt8], toPort port: Int) {
        var address = Self.loopback(port: port)
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    func close() { Glibc.close(fd) }
}
