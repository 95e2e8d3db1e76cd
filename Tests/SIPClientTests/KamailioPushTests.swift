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
