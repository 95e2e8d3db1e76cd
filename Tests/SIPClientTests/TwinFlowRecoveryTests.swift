import SIPClient
import SIPEmbedded
import XCTest

/// Flow recovery on the embedded twin under the manual clock: the proxy drops every connection and forgets its
/// bindings (a restart, `MemorySIPPool.dropConnections` + `SIPTwinProxy.forgetBindings`).
final class TwinFlowRecoveryTests: XCTestCase {
    private func world(_ policy: SIPReconnectPolicy) -> (SIPTwinWorld, alice: Int, bob: Int) {
        let world = SIPTwinWorld()
        let alice = world.agent("alice", transport: .tcp, seed: 1), bob = world.agent("bob", transport: .tcp, seed: 2)
        for id in [alice, bob] {
            world.pool.agent(id)?.reconnect = policy
            world.register(id)
        }
        world.advance(by: 1_000_000_000)
        world.proxy.forgetBindings()
        world.pool.dropConnections()
        world.settle()
        return (world, alice, bob)
    }

    func testAfterTheDropEachDeviceReconnectsReRegistersAndCallsComplete() {
        let (world, alice, bob) = world(SIPReconnectPolicy(backoff: .exponential))
        for id in [alice, bob] {
            let events = world.events(id)
            XCTAssertTrue(events.contains(.flow(.lost)), "\(events)")
            XCTAssertTrue(events.contains(.flow(.reconnected)), "\(events)")
            XCTAssertEqual(events.last, .flow(.reregistered(afterNanos: 0)), "at once on the loop's clock: \(events)")
        }
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.incoming(bob), call, "the proxy knows bob on his new connection")
        world.pool.perform(bob) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .answered(call: call))
    }

    /// `none`, the old behaviour: the devices reconnect but stay unknown until their refresh, so a call fails 404.
    func testWithoutRecoveryACallAfterTheDropFails404() {
        let (world, alice, _) = world(.none)
        XCTAssertFalse(world.events(alice).contains { if case .flow = $0 { return true } else { return false } })
        var call = ""
        world.pool.perform(alice) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 404))
    }
}
