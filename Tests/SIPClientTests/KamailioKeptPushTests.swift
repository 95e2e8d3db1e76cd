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
        let gateway = try PushCatcher()
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
            XCTAssertTrue(eventually(10) { gateway.requestsByConnection().count == i + 1 }, kamailio.log.suffix(2000).description)
        }
        let pushes = gateway.requestsByConnection()
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
