import Determinism
import SIP
import SIPClient
import SIPEmbedded
import XCTest

/// The twin registrar/proxy (`SIPTwinProxy`) with real agents in a `MemorySIPPool`, under the manual clock: each
/// Kamailio behaviour the twin reproduces (deploy/kamailio/kamailio.cfg), pinned by what the agents see.
final class SIPTwinProxyTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testARegisterIsChallengedAnsweredWithTheDigestAndBoundForTheLifetimeAsked() throws {
        let world = SIPTwinWorld()
        let alice = world.agent("alice")
        world.register(alice)
        XCTAssertEqual(world.events(alice), [.registered(expires: 600)])
        XCTAssertEqual(world.proxy.stats.replied[401], 1, "challenged once")
        XCTAssertEqual(world.pool.counters.responsesReceived[401], 1)
        let binding = try XCTUnwrap(world.proxy.binding(of: "alice"))
        XCTAssertEqual(binding.endpoint, world.pool.endpoint(alice))
        world.advance(by: 601 * second)
        XCTAssertNotNil(world.proxy.binding(of: "alice"), "the agent refreshed at 80 % of its lifetime")
        XCTAssertEqual(world.events(alice), [.registered(expires: 600), .registered(expires: 600)])
    }

    func testAWrongPasswordIsRefusedAndNoChallengeMeansARegistrarWithoutDigest() {
        let world = SIPTwinWorld()
        let account = SIPAccount(user: "mallory", domain: "127.0.0.1", password: "wrong")
        let mallory = try! world.pool.add(account: account, transport: .udp, seed: 3).get()
        world.register(mallory)
        XCTAssertEqual(world.events(mallory), [.registrationFailed(status: 401)])
        XCTAssertNil(world.proxy.binding(of: "mallory"))
        let open = SIPTwinWorld(challenges: false)
        let bob = open.agent("bob")
        open.register(bob)
        XCTAssertEqual(open.events(bob), [.registered(expires: 600)])
        XCTAssertNil(open.proxy.stats.replied[401])
    }

    func testACallRingsIsAnsweredAndEndsWithAByeRelayedThroughTheProxy() throws {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        world.register(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.incoming(bob), call)
        XCTAssertTrue(world.events(alice).contains(.progress(call: call, status: 180)))
        world.pool.perform(bob) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .answered(call: call))
        XCTAssertEqual(world.events(bob).last, .answered(call: call), "the ACK reached the callee by its Route")
        world.pool.perform(alice) { _ = $0.bye(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .ended(call: call, reason: .localBye))
        XCTAssertEqual(world.events(bob).last, .ended(call: call, reason: .remoteBye))
        let counters = world.pool.counters
        XCTAssertEqual(counters.responsesReceived[100], 1, "the proxy's own 100 Trying; the callee's is hop by hop")
        XCTAssertNil(counters.retransmissionsSent["INVITE"])
    }

    func testAnInviteForAUserWithNoBindingIs404AndABusyCalleesRefusalReachesTheCaller() {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:carol@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 404))
        world.register(bob)
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        world.pool.perform(bob) { _ = $0.decline(call, status: 486, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 486))
        world.advance(by: 40 * second)
        XCTAssertNil(world.pool.counters.retransmissionsReceived["486"], "the caller's ACK stopped the proxy's 486")
    }

    func testACancelWhileTheCalleeRingsIsRelayedAndTheCallerGets487() {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        world.register(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        world.pool.perform(alice) { _ = $0.cancel(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .ended(call: call, reason: .cancelled))
        XCTAssertEqual(world.events(bob).last, .ended(call: call, reason: .cancelled))
    }

    func testARelayToAClosedTCPConnectionFailsAtOnceWith477() {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", transport: .tcp, seed: 2)
        world.register(alice)
        world.register(bob)
        world.pool.close(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 477))
        XCTAssertEqual(world.proxy.stats.replied[477], 1)
    }

    /// RFC 8599 over UDP: the INVITE goes to the stale contact, the push names the call, and the wake REGISTER
    /// from a new socket adds the branch that reaches the device.
    func testAnInviteToASleepingDeviceIsPushedAndRelayedToTheContactOfItsWakeRegister() throws {
        let world = SIPTwinWorld(push: 10 * second)
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", token: "ab12", seed: 2)
        world.register(alice)
        world.register(bob)
        world.pool.close(bob)  // asleep
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        let push = try XCTUnwrap(world.pushes.first)
        XCTAssertEqual(push.token, "ab12")
        XCTAssertEqual(push.pushType, .voip)
        XCTAssertEqual(push.topic, "com.example.app.voip")
        let payload = String(decoding: push.payload, as: UTF8.self)
        XCTAssertTrue(payload.contains("\"uuid\":\"\(call)\""), payload)
        XCTAssertTrue(payload.contains("\"handle\":\"sip:alice@127.0.0.1\""), payload)
        XCTAssertEqual(world.network.undeliverable, 0, "the stale contact's refusal is seen at the relay")
        XCTAssertEqual(world.proxy.stats.parked, 1)
        world.advance(by: second / 2)
        let woken = world.agent("bob", token: "ab12", seed: 3)
        world.register(woken)
        XCTAssertEqual(world.incoming(woken), call)
        XCTAssertEqual(world.proxy.stats.woken, 1)
        world.pool.perform(woken) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .answered(call: call))
    }

    /// Over TCP the INVITE is suspended (no relay to the gone connection, no 477) and continued by the wake REGISTER.
    func testOverTCPTheParkedInviteIsContinuedByTheWakeRegisterOnItsNewConnection() {
        let world = SIPTwinWorld(push: 10 * second)
        let alice = world.agent("alice", transport: .tcp, seed: 1)
        let bob = world.agent("bob", transport: .tcp, token: "cd34", seed: 2)
        world.register(alice)
        world.register(bob)
        world.pool.close(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.pushes.count, 1)
        XCTAssertNil(world.proxy.stats.replied[477])
        let woken = world.agent("bob", transport: .tcp, token: "cd34", seed: 3)
        world.register(woken)
        XCTAssertEqual(world.incoming(woken), call)
    }

    /// The push timeout: no wake in time, the caller gets 408; a REGISTER after it finds nothing to continue.
    func testThePushTimeoutEndsAnInviteNoWakeReachedWith408AndALateRegisterFindsNothing() {
        let world = SIPTwinWorld(push: 2 * second)
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", token: "ef56", seed: 2)
        world.register(alice)
        world.register(bob)
        world.pool.close(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.advance(by: 2 * second)
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 408))
        let late = world.agent("bob", token: "ef56", seed: 3)
        world.register(late)
        XCTAssertNil(world.incoming(late))
        XCTAssertEqual(world.proxy.stats.woken, 0)
    }

    /// The stale contact's port, handed to another agent, gets the relayed INVITE: that agent does not answer it
    /// (misdirected), and the woken device still takes the call.
    func testTheStaleContactRelayReachesWhoeverHoldsThePortNowWhichLeavesItUnanswered() {
        let world = SIPTwinWorld(push: 10 * second)
        world.network.reusesPorts = true
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", token: "0a0b", seed: 2)
        world.register(alice)
        world.register(bob)
        world.pool.close(bob)
        let carol = world.agent("carol", seed: 4)  // bob's old port
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.pool.agent(carol)?.counters.misdirected["INVITE"], 1)
        XCTAssertNil(world.incoming(carol))
        let woken = world.agent("bob", token: "0a0b", seed: 3)
        world.register(woken)
        world.pool.perform(woken) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .answered(call: call))
    }

    /// The test orders deliveries: the caller's BYE reaches the callee before the ACK of its 200.
    func testATestCanDeliverTheByeBeforeTheAckItHeldBack() {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        world.register(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        let bobPort = world.pool.endpoint(bob)!
        world.network.hold = { $0.label == "ACK" && $0.to == bobPort }
        world.pool.perform(bob) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.network.held.count, 1, "the ACK waits")
        world.pool.perform(alice) { _ = $0.bye(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(bob).last, .ended(call: call, reason: .remoteBye), "the BYE came first")
        world.network.hold = nil
        XCTAssertEqual(world.network.release { $0.label == "ACK" }, 1)
        world.settle()
        XCTAssertFalse(world.events(bob).contains(.answered(call: call)), "the late ACK finds no call")
    }
}
