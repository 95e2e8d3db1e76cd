import Foundation
import Locking
import RTPEngine
import SIP
import SIPClient
import TestSupport
import XCTest

/// The RFC 8599 wake-up path with the media relay (-A WITH_PUSH -A WITH_RTPENGINE): the INVITE parked for a
/// sleeping device (tsilo over UDP, t_suspend over TCP) and relayed after its wake REGISTER carries rtpengine's
/// SDP, the woken device's answer reaches the caller rewritten too, and rtpengine holds the call with both
/// parties' addresses.
final class KamailioRelayWakeTests: XCTestCase {
    func testOverUDPTheParkedInviteAndItsAnswerAreRewrittenThroughTheRelay() throws {
        try wakeThroughTheRelay(.udp)
    }

    func testOverTCPTheSuspendedInviteAndItsAnswerAreRewrittenThroughTheRelay() throws {
        try wakeThroughTheRelay(.tcp)
    }

    /// The same through the forking routes (WITH_FORK): the parked INVITE's parking branch and the wake REGISTER's
    /// branch carry the relay's offer, and the call that ends is deleted once (no rtpengine error).
    func testThroughTheForkingRoutesTheWokenBranchAndItsAnswerAreRewrittenThroughTheRelay() throws {
        try wakeThroughTheRelay(.udp, fork: true)
    }

    private func wakeThroughTheRelay(_ transport: SIPTransportKind, fork: Bool = false) throws {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 20))
        defer { engine.stop() }
        let gateway = try PushCatcher()
        defer { gateway.stop() }
        let kamailio = try KamailioProcess(defines: engine.kamailioDefines() + [
            "WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(gateway.port)\"",
        ] + (fork ? [KamailioOptions.forkDefine] : []))
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let push = PushContactParameters.apnsVoIP(token: String(repeating: "0f", count: 32), team: "ABCD123456",
                                                  bundle: "com.example.app")
        let account = SIPAccount(user: "bob", domain: domain, password: "callstorm", push: push,
                                 instance: SIPAccount.instanceURN(device: "bob", seed: 1))
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), transport,
                                    seed: 16)
        let sleeping = try harness.add(account, transport, seed: 17)
        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(sleeping) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.registered(expires: 600))
                && harness.events(sleeping).contains(.registered(expires: 600))
        })
        harness.close(sleeping)
        let received = Mutex<[SIPMessage]>([])
        harness.perform(alice) { agent, _ in
            agent.onMessage = { _, sent, message in if !sent { received.withLock { $0.append(message) } } }
        }

        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) { !gateway.requests().isEmpty }, kamailio.log.suffix(2000).description)
        let woken = try harness.add(account, transport, seed: 18)
        harness.perform(woken) { agent, _ in
            agent.onMessage = { _, sent, message in if !sent { received.withLock { $0.append(message) } } }
        }
        harness.perform(woken) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(woken).contains(.incoming(call: call, from: "sip:alice@\(domain)"))
        }, "\(harness.events(woken))\n\(kamailio.log.suffix(2000))")
        harness.perform(woken) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.answered(call: call)) },
                      "\(harness.events(alice))")

        let messages = received.withLock { $0 }
        let invite = try XCTUnwrap(messages.first { $0.method == .invite }, "the woken device got the INVITE")
        let answer = try XCTUnwrap(messages.first { $0.status == 200 && !$0.body.isEmpty }, "alice got the 200")
        let offered = try XCTUnwrap(SDPSession(parsing: invite.body))
        let answered = try XCTUnwrap(SDPSession(parsing: answer.body))
        XCTAssertTrue(engine.ports.contains(offered.port), "the parked INVITE's SDP: \(offered)")
        XCTAssertTrue(engine.ports.contains(answered.port), "the woken device's answer: \(answered)")
        let relayed = try engine.client().query(callID: call)
        let parties = relayed.tags.filter { !$0.learnedRTP.isEmpty }
        XCTAssertEqual(parties.count, 2, "\(relayed.tags)")
        XCTAssertFalse(kamailio.log.contains("ERROR"), kamailio.log.suffix(3000).description)
    }
}
