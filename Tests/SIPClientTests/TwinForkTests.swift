import Determinism
import PushModel
import SIP
import SIPClient
import SIPEmbedded
import XCTest

/// The twin proxy's forking (WITH_FORK, deploy/kamailio/fork.cfg) with real agents under the manual clock: one
/// user `bob` with several devices (agents sharing the user, each with its own RFC 5626 instance), sleeping and
/// awake mixed; pinned by what the agents see and what the proxy pushed. The same cases through a real Kamailio:
/// KamailioForkTests.
final class TwinForkTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testEachDeviceKeepsABindingOfItsOwnAndAWakeReplacesOnlyItsOwn() throws {
        let world = SIPTwinWorld(push: 10 * second, fork: true)
        let phone = world.agent("bob", seed: 1, instance: "phone")
        let tablet = world.agent("bob", token: "t1", seed: 2, instance: "tablet")
        world.register(phone)
        world.register(tablet)
        XCTAssertEqual(world.proxy.bindings(of: "bob").count, 2)
        world.pool.close(tablet)
        let woken = world.agent("bob", token: "t1", seed: 3, instance: "tablet")
        world.register(woken)
        let bindings = world.proxy.bindings(of: "bob")
        XCTAssertEqual(bindings.map(\.endpoint), [world.pool.endpoint(phone), world.pool.endpoint(woken)])
        let without = SIPTwinWorld(push: 10 * second, fork: true)
        let a = without.agent("bob", seed: 1), b = without.agent("bob", seed: 2)
        without.register(a)
        without.register(b)
        XCTAssertEqual(without.proxy.bindings(of: "bob").count, 2, "no instance: one binding per contact")
    }

    func testAnAwakeDeviceRingsAtOnceTheSleepingOneIsPushedAndWhenTheWokenOneAnswersTheAwakeOneEndsElsewhere() {
        for transport in [SIPTransportKind.udp, .tcp, .tls, .ws] {
            let world = SIPTwinWorld(push: 10 * second, fork: true)
            let alice = world.agent("alice", transport: transport, seed: 1)
            let awake = world.agent("bob", transport: transport, seed: 2, instance: "phone")
            let sleeping = world.agent("bob", transport: transport, token: "t1", seed: 3, instance: "tablet")
            [alice, awake, sleeping].forEach(world.register)
            world.pool.close(sleeping)
            let call = invite(world, alice)
            XCTAssertEqual(world.incoming(awake), call, "\(transport): the awake device rings at once")
            XCTAssertEqual(world.pushes.map(\.pushType), [.voip])
            XCTAssertEqual(world.pushes.first?.token, "t1")
            let woken = world.agent("bob", transport: transport, token: "t1", seed: 4, instance: "tablet")
            world.register(woken)
            XCTAssertEqual(world.incoming(woken), call, "\(transport): the wake REGISTER's branch")
            world.pool.perform(woken) { _ = $0.answer(call, now: $1) }
            world.settle()
            XCTAssertEqual(world.events(alice).last, .answered(call: call))
            XCTAssertEqual(world.events(awake).last, .ended(call: call, reason: .elsewhere(cause: 200)),
                           "\(transport): CANCEL with Reason cause=200")
        }
    }

    /// A 486 from the awake device does not end a call a sleeping device is being woken for (its park holds the
    /// transaction): the woken device can still take it.
    func testAnAwakeRefusalLeavesTheCallToTheWakingDevice() {
        let world = SIPTwinWorld(push: 10 * second, fork: true)
        let alice = world.agent("alice", seed: 1)
        let awake = world.agent("bob", seed: 2, instance: "phone")
        let sleeping = world.agent("bob", token: "t1", seed: 3, instance: "tablet")
        [alice, awake, sleeping].forEach(world.register)
        world.pool.close(sleeping)
        let call = invite(world, alice)
        world.pool.perform(awake) { _ = $0.decline(call, status: 486, now: $1) }
        world.settle()
        XCTAssertFalse(world.events(alice).contains(.failed(call: call, status: 486)))
        let woken = world.agent("bob", token: "t1", seed: 4, instance: "tablet")
        world.register(woken)
        world.pool.perform(woken) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).last, .answered(call: call))
    }

    /// Two awake devices and a sleeping one: a decline on one CANCELs the other with cause 603 and reaches the
    /// caller at once; the sleeping device, woken after, is told by a background push (declined elsewhere).
    func testADeclineEndsTheOthersDeclinedElsewhereAndALateWakeIsTold() throws {
        let world = SIPTwinWorld(push: 10 * second, fork: true)
        let alice = world.agent("alice", seed: 1)
        let first = world.agent("bob", seed: 2, instance: "phone")
        let second = world.agent("bob", seed: 3, instance: "watch")
        let sleeping = world.agent("bob", token: "t1", seed: 4, instance: "mac")
        [alice, first, second, sleeping].forEach(world.register)
        world.pool.close(sleeping)
        let call = invite(world, alice)
        XCTAssertEqual(world.incoming(first), call)
        XCTAssertEqual(world.incoming(second), call)
        world.pool.perform(first) { _ = $0.decline(call, status: 603, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(second).last, .ended(call: call, reason: .elsewhere(cause: 603)))
        XCTAssertEqual(world.events(alice).last, .failed(call: call, status: 603))
        let late = world.agent("bob", token: "t1", seed: 5, instance: "mac")
        world.register(late)
        XCTAssertNil(world.incoming(late), "no branch on a call that ended")
        XCTAssertEqual(world.pushes.map(\.pushType), [.voip, .background], "never a VoIP push without a call")
        let told = String(decoding: try XCTUnwrap(world.pushes.last).payload, as: UTF8.self)
        XCTAssertTrue(told.contains("\"reason\":\"declinedElsewhere\"") && told.contains(call), told)
        XCTAssertEqual(world.pushes.last?.topic, "com.example.app")
    }

    /// A device woken after the answer elsewhere: told joined elsewhere, or (WITH_FORK_NO_LATE) told nothing.
    func testALateWakeAfterTheAnswerIsToldOrNotByTheVariant() throws {
        for tells in [true, false] {
            let world = SIPTwinWorld(push: 10 * second, fork: true, lateTold: tells)
            let alice = world.agent("alice", seed: 1)
            let awake = world.agent("bob", seed: 2, instance: "phone")
            let sleeping = world.agent("bob", token: "t1", seed: 3, instance: "tablet")
            [alice, awake, sleeping].forEach(world.register)
            world.pool.close(sleeping)
            let call = invite(world, alice)
            world.pool.perform(awake) { _ = $0.answer(call, now: $1) }
            world.settle()
            XCTAssertEqual(world.events(alice).last, .answered(call: call))
            let late = world.agent("bob", token: "t1", seed: 4, instance: "tablet")
            world.register(late)
            XCTAssertNil(world.incoming(late))
            XCTAssertEqual(world.pushes.map(\.pushType), tells ? [.voip, .background] : [.voip])
            XCTAssertEqual(world.proxy.stats.lateTold, tells ? 1 : 0)
            if tells {
                let told = String(decoding: try XCTUnwrap(world.pushes.last).payload, as: UTF8.self)
                XCTAssertTrue(told.contains("\"event\":\"ended\",\"reason\":\"joinedElsewhere\""), told)
            }
        }
    }

    /// The caller gives up before the sleeping device wakes (an early cancel): the awake device's CANCEL carries no
    /// Reason (missed, not elsewhere) and the device woken after is told the call ended unanswered.
    func testAnEarlyCancelEndsTheAwakeDeviceMissedAndALateWakeIsToldUnanswered() throws {
        let world = SIPTwinWorld(push: 10 * second, fork: true)
        let alice = world.agent("alice", seed: 1)
        let awake = world.agent("bob", seed: 2, instance: "phone")
        let sleeping = world.agent("bob", token: "t1", seed: 3, instance: "tablet")
        [alice, awake, sleeping].forEach(world.register)
        world.pool.close(sleeping)
        let call = invite(world, alice)
        world.pool.perform(alice) { _ = $0.cancel(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(awake).last, .ended(call: call, reason: .cancelled))
        XCTAssertEqual(world.events(alice).last, .ended(call: call, reason: .cancelled))
        let late = world.agent("bob", token: "t1", seed: 4, instance: "tablet")
        world.register(late)
        XCTAssertNil(world.incoming(late))
        XCTAssertEqual(world.pushes.map(\.pushType), [.voip, .background])
        let told = String(decoding: try XCTUnwrap(world.pushes.last).payload, as: UTF8.self)
        XCTAssertTrue(told.contains("\"reason\":\"unanswered\""), told)
    }

    /// Two devices answer in the same instant (RFC 3261 §13.2.2.4): the caller ACKs both 2xx, keeps the first and
    /// ends the second with a BYE whose Reason says the call was taken elsewhere; counted at the caller.
    func testTwoAnswersInTheSameInstantAreBothAckedAndTheSecondIsByedElsewhere() {
        let world = SIPTwinWorld(push: 10 * second, fork: true)
        let alice = world.agent("alice", seed: 1)
        let first = world.agent("bob", seed: 2, instance: "phone")
        let second = world.agent("bob", seed: 3, instance: "tablet")
        [alice, first, second].forEach(world.register)
        let call = invite(world, alice)
        world.pool.perform(first) { _ = $0.answer(call, now: $1) }
        world.pool.perform(second) { _ = $0.answer(call, now: $1) }
        world.settle()
        XCTAssertEqual(world.events(alice).filter { $0 == .answered(call: call) }.count, 1)
        XCTAssertEqual(world.events(first).last, .answered(call: call))
        XCTAssertEqual(world.events(second).last, .ended(call: call, reason: .elsewhere(cause: 200)))
        let counters = world.pool.counters
        XCTAssertEqual(counters.forks["second_answer"], 1)
        XCTAssertEqual(counters.requestsSent["ACK"], 2, "both 2xx ACKed")
        XCTAssertEqual(counters.forks["elsewhere_200"], 1)
    }

    private func invite(_ world: SIPTwinWorld, _ caller: Int) -> String {
        var call = ""
        world.pool.perform(caller) { call = $0.invite("sip:bob@127.0.0.1", now: $1) }
        world.settle()
        return call
    }
}
