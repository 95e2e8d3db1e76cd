import SIP
import SIPClient
import XCTest

/// `SIPUserAgent.mediaPort` and `sdp(_:)` (issue 34): the SDP offer and answer name the port the owner's media
/// stream listens on, and each end knows the other's SDP from the INVITE, the 2xx and each re-INVITE.
final class AgentMediaPortTests: XCTestCase {
    func testTheSDPsNameTheOwnersPortsAndEachEndKnowsTheOthersThroughHoldAndResume() throws {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        world.register(bob)
        var asked: [String] = []
        world.pool.agent(alice)?.mediaPort = { asked.append("alice \($0)"); return 20_000 }
        world.pool.agent(bob)?.mediaPort = { asked.append("bob \($0)"); return 20_002 }
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(asked, ["alice \(call)", "bob \(call)"], "asked once at each end, by Call-ID")
        let offered = try XCTUnwrap(world.pool.agent(bob)?.sdp(call))
        XCTAssertEqual(offered.local.port, 20_002, "the callee's answer names its stream's port")
        XCTAssertEqual(offered.remote?.port, 20_000, "the callee has the caller's offer from the INVITE")
        XCTAssertNil(world.pool.agent(alice)?.sdp(call)?.remote, "the caller has no answer before the 2xx")
        world.pool.perform(bob) { _ = $0.answer(call, now: $1) }
        world.settle()
        let answered = try XCTUnwrap(world.pool.agent(alice)?.sdp(call))
        XCTAssertEqual(answered.local.port, 20_000)
        XCTAssertEqual(answered.remote?.port, 20_002, "the caller has the answer from the 2xx")
        XCTAssertEqual(answered.remote?.direction, .sendrecv)
        world.pool.perform(alice) { _ = $0.setHold(call, held: true, now: $1) }
        world.settle()
        XCTAssertEqual(world.pool.agent(alice)?.sdp(call)?.local.direction, .sendonly)
        XCTAssertEqual(world.pool.agent(alice)?.sdp(call)?.remote?.direction, .recvonly, "the held end's answer")
        XCTAssertEqual(world.pool.agent(bob)?.sdp(call)?.local.direction, .recvonly)
        XCTAssertEqual(world.pool.agent(bob)?.sdp(call)?.remote?.direction, .sendonly, "the holder's offer")
        world.pool.perform(alice) { _ = $0.setHold(call, held: false, now: $1) }
        world.settle()
        XCTAssertEqual(world.pool.agent(bob)?.sdp(call)?.remote?.direction, .sendrecv)
        XCTAssertEqual(world.pool.agent(alice)?.sdp(call)?.remote?.direction, .sendrecv)
        XCTAssertEqual(asked.count, 2, "a re-INVITE keeps the call's port")
    }

    /// Without `mediaPort` (signalling only) the port is the random one drawn as before.
    func testWithoutMediaPortTheSDPNamesTheDrawnPort() {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", seed: 1), bob = world.agent("bob", seed: 2)
        world.register(alice)
        world.register(bob)
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        let port = world.pool.agent(alice)?.sdp(call)?.local.port ?? 0
        XCTAssertTrue((40_000...59_998).contains(port) && port % 2 == 0, "\(port)")
    }
}
