import CLinux
import Foundation
import SIP
import SIPClient
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The shipped configuration's pushes wait for the gateway in task workers, not in the SIP workers (docs/SIP.md,
/// "The wake-up path at rate"): with the push in the SIP worker that parked the INVITE, a gateway that did not
/// answer held that worker, and two such pushes held both of the configuration's SIP workers, so nothing else was
/// answered until the HTTP timeout.
final class KamailioPushWorkerTests: XCTestCase {
    func testARegisterIsAnsweredWhileTwoPushesWaitForAGatewayThatHasNotAnswered() throws {
        // A gateway that takes each connection and its request and never answers.
        let gateway = clinux_listen_tcp("127.0.0.1", 0, 16)
        XCTAssertGreaterThanOrEqual(gateway, 0)
        defer { Glibc.close(gateway) }
        // Longer than this test: a push ends only when the test closes its connection.
        let kamailio = try KamailioProcess(defines: [
            "WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(clinux_local_port(gateway))\"", "PUSH_HTTP_TIMEOUT=120",
        ])
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), .udp, seed: 11)
        var sleepers: [Int] = []
        for (n, user) in ["bob", "carol"].enumerated() {
            let push = PushContactParameters.apnsVoIP(token: String(repeating: "a\(n)", count: 32), team: "ABCD123456",
                                                      bundle: "com.example.app")
            sleepers.append(try harness.add(SIPAccount(user: user, domain: domain, password: "callstorm", push: push),
                                            .udp, seed: UInt64(12 + n)))
        }
        for agent in [alice] + sleepers { harness.perform(agent) { $0.register(now: $1) } }
        XCTAssertTrue(eventually(10) {
            ([alice] + sleepers).allSatisfy { harness.events($0).contains(.registered(expires: 600)) }
        })
        for agent in sleepers { harness.close(agent) }

        // Two parked INVITEs: two pushes, each now waiting for the gateway's answer.
        for user in ["bob", "carol"] { harness.perform(alice) { _ = $0.invite("sip:\(user)@\(domain)", now: $1) } }
        var pushes: [Int32] = []
        defer { pushes.forEach { Glibc.close($0) } }
        XCTAssertTrue(eventually(10) {
            let fd = clinux_accept(gateway)
            if fd >= 0 { pushes.append(fd) }
            return pushes.count == 2
        }, kamailio.log.suffix(2000).description)

        // Another device registers meanwhile: its REGISTER and the challenge before it are answered by SIP workers
        // that are not waiting for the gateway.
        let dave = try harness.add(SIPAccount(user: "dave", domain: domain, password: "callstorm"), .udp, seed: 14)
        harness.perform(dave) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(dave).contains(.registered(expires: 600)) },
                      "\(harness.events(dave))\n\(kamailio.log.suffix(2000))")
        // Both pushes are still waiting: neither connection was closed by a timeout on Kamailio's side.
        for fd in pushes {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var got = 0
            repeat {
                got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            } while got > 0
            XCTAssertEqual(got, -1, "a push's connection still open, its request read, no answer yet (errno \(errno))")
        }
    }
}
