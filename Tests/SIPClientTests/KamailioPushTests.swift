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

/// The RFC 8599 wake-up path through the shipped Kamailio configuration (-A WITH_PUSH): the INVITE to a sleeping
/// device is parked, the push reaches an HTTP listener standing in for the gateway, and the device's wake
/// REGISTER brings it the INVITE.
final class KamailioPushTests: XCTestCase {
    func testInviteToASleepingDeviceIsParkedPushedAndDeliveredAfterItsWakeRegister() throws {
        let gateway = try PushCatcher()
        defer { gateway.stop() }
        let kamailio = try KamailioProcess(defines: [
            "WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(gateway.port)\"",
        ])
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let token = String(repeating: "0f", count: 32)
        let push = PushContactParameters.apnsVoIP(token: token, team: "ABCD123456", bundle: "com.example.app")
        let account = SIPAccount(user: "bob", domain: domain, password: "callstorm", push: push)
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), .udp, seed: 6)
        let sleeping = try harness.add(account, .udp, seed: 7)
        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(sleeping) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.registered(expires: 600))
                && harness.events(sleeping).contains(.registered(expires: 600))
        })
        // The app is suspended: its socket is gone, its binding (with the push parameters) stays.
        harness.close(sleeping)

        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) { !gateway.requests().isEmpty }, kamailio.log.suffix(2000).description)
        let pushed = try XCTUnwrap(gateway.requests().first)
        XCTAssertTrue(pushed.hasPrefix("POST /3/device/\(token) HTTP/1.1"), pushed)
        XCTAssertTrue(pushed.lowercased().contains("apns-push-type: voip"), pushed)
        XCTAssertTrue(pushed.lowercased().contains("apns-topic: com.example.app.voip"), pushed)
        XCTAssertTrue(pushed.contains(call), "the push names the parked call: \(pushed)")
        // A connection per push, said so: the gateway closes as it answers rather than waking again for Kamailio's
        // close (docs/SIP.md, "The wake-up path at rate").
        XCTAssertTrue(pushed.lowercased().contains("\r\nconnection: close\r\n"), pushed)
        let contentTypes = pushed.lowercased().components(separatedBy: "\r\n").filter { $0.hasPrefix("content-type:") }
        XCTAssertEqual(contentTypes, ["content-type: application/json"], "one content type, JSON's: \(pushed)")

        // The push woke the app: a new socket, a wake REGISTER, then the INVITE.
        let woken = try harness.add(account, .udp, seed: 8)
        harness.perform(woken) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(woken).contains(.incoming(call: call, from: "sip:alice@\(domain)"))
        }, "\(harness.events(woken))\n\(kamailio.log.suffix(2000))")
        harness.perform(woken) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.answered(call: call)) },
                      "\(harness.events(alice))")
        XCTAssertEqual(gateway.requests().count, 1, "one push for one INVITE")
    }
}

/// An HTTP/1.1 listener standing in for the push gateway: records each request (head and body) and answers 200.
final class PushCatcher: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[String]>([])
    private let stopping = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        listener = clinux_listen_tcp("127.0.0.1", 0, 16)
        guard listener >= 0 else { throw KamailioProcess.Failure.noFreePort }
        port = Int(clinux_local_port(listener))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    func requests() -> [String] { seen.withLock { $0 } }

    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
        Glibc.close(listener)
    }

    private func serve() {
        while !stopping.withLock({ $0 }) {
            let fd = clinux_accept(listener)
            if fd < 0 {
                usleep(2_000)
                continue
            }
            let request = read(fd)
            seen.withLock { $0.append(request) }
            let reply = "HTTP/1.1 200 OK\r\napns-id: 00000000-0000-0000-0000-000000000001\r\nContent-Length: 0\r\n"
                + "Connection: close\r\n\r\n"
            _ = Array(reply.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            Glibc.close(fd)
        }
        done.signal()
    }

    /// Reads a head and its Content-Length body from a non-blocking socket, for up to 5 s.
    private func read(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = eventually(5) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { bytes += buffer[..<n] }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { return false }
            let length = text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            return text[end.upperBound...].utf8.count >= length
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
