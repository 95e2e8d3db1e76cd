import Foundation
import SIP
import SIPClient
import TestSupport
import XCTest

/// One user's several devices through the shipped Kamailio's forking routes (-A WITH_PUSH -A WITH_FORK,
/// deploy/kamailio/fork.cfg): each device keeps a binding of its own (RFC 5626 +sip.instance), an INVITE rings
/// the awake ones in parallel and pushes the sleeping ones, whose wake REGISTER adds a branch; one answers or
/// declines and the others are CANCELled with RFC 3326 Reason; a device woken after the end is told by a
/// background push, or not (WITH_FORK_NO_LATE). The devices are SIPClient agents sharing the user `bob`.
final class KamailioForkTests: XCTestCase {
    func testOverUDPAnAwakeAndAWokenDeviceRingAndTheOneNotAnsweringIsCancelledJoinedElsewhere() throws {
        try awakeAndWoken(.udp)
    }

    func testOverTCPAnAwakeAndAWokenDeviceRingAndTheOneNotAnsweringIsCancelledJoinedElsewhere() throws {
        try awakeAndWoken(.tcp)
    }

    func testOverTLSAnAwakeAndAWokenDeviceRingAndTheOneNotAnsweringIsCancelledJoinedElsewhere() throws {
        try awakeAndWoken(.tls)
    }

    func testOverWebSocketAnAwakeAndAWokenDeviceRingAndTheOneNotAnsweringIsCancelledJoinedElsewhere() throws {
        try awakeAndWoken(.ws)
    }

    func testOverSecureWebSocketAnAwakeAndAWokenDeviceRingAndTheOneNotAnsweringIsCancelledJoinedElsewhere() throws {
        try awakeAndWoken(.wss)
    }

    /// Two awake devices and a sleeping one (never woken): one declines, the other is CANCELled with cause 603,
    /// and the caller hears the decline at once (the parking branch does not hold it).
    func testADeclineOnOneDeviceCancelsTheOthersDeclinedElsewhere() throws {
        let world = try ForkWorld(.udp)
        defer { world.stop() }
        let first = try world.awake(seed: 31), second = try world.awake(seed: 32)
        _ = try world.sleeping(token: "0a", seed: 33)
        let call = world.invite()
        XCTAssertTrue(world.rings(first, call) && world.rings(second, call), world.log)
        world.harness.perform(first) { _ = $0.decline(call, status: 603, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(second).contains(Call.ended(call, elsewhere: 603)) },
                      "\(world.harness.events(second))\n\(world.log)")
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.failed(call: call, status: 603)) },
                      "\(world.harness.events(world.alice))")
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, "one VoIP push, to the sleeping device")
    }

    /// Three bindings: two awake, one sleeping. One awake answers; the other is CANCELled with cause 200; the
    /// sleeping device wakes after the answer and gets a background push saying the call was joined elsewhere,
    /// never a second VoIP push.
    func testADeviceWokenAfterTheAnswerIsToldByABackgroundPush() throws {
        let world = try ForkWorld(.udp)
        defer { world.stop() }
        let first = try world.awake(seed: 41), second = try world.awake(seed: 42)
        let account = try world.sleeping(token: "0b", seed: 43)
        let call = world.invite()
        XCTAssertTrue(world.rings(first, call) && world.rings(second, call), world.log)
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, world.log)
        world.harness.perform(first) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(second).contains(Call.ended(call, elsewhere: 200)) },
                      "\(world.harness.events(second))\n\(world.log)")
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.answered(call: call)) })

        let late = try world.wake(account, seed: 44)
        XCTAssertTrue(eventually(10) { world.backgroundPushes().count == 1 }, world.log)
        let told = try XCTUnwrap(world.backgroundPushes().first)
        XCTAssertTrue(told.contains("\"uuid\":\"\(call)\"") && told.contains("\"reason\":\"joinedElsewhere\""), told)
        XCTAssertTrue(told.lowercased().contains("apns-topic: com.example.app\r\n"), told)
        XCTAssertEqual(world.voipPushes(), 1, "no VoIP push without a call")
        XCTAssertFalse(world.harness.events(late).contains { if case .incoming = $0 { return true }; return false })
    }

    /// The variant without the late message: the device woken after the answer hears nothing (it rings until its
    /// own timeout, which a run counts against the server).
    func testWithoutTheLateMessageAWokenDeviceHearsNothing() throws {
        let world = try ForkWorld(.udp, noLate: true)
        defer { world.stop() }
        let first = try world.awake(seed: 51)
        let account = try world.sleeping(token: "0c", seed: 52)
        let call = world.invite()
        XCTAssertTrue(world.rings(first, call), world.log)
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, world.log)
        world.harness.perform(first) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.answered(call: call)) })
        _ = try world.wake(account, seed: 53)
        XCTAssertTrue(eventually(10) { world.kamailio.log.contains("late wake for \(call) not told") }, world.log)
        XCTAssertEqual(world.backgroundPushes().count, 0, world.log)
    }

    /// Three bindings, two of them asleep: each sleeping device gets its own VoIP push, both wake REGISTERs add a
    /// branch, one woken device answers and the awake one and the other woken one are CANCELled with cause 200.
    func testTwoSleepingDevicesAreEachPushedAndBothWokenRingBesideTheAwakeOne() throws {
        let world = try ForkWorld(.tcp)
        defer { world.stop() }
        let awake = try world.awake(seed: 91)
        let tablet = try world.sleeping(token: "1a", seed: 92), mac = try world.sleeping(token: "1b", seed: 93)
        let call = world.invite()
        XCTAssertTrue(world.rings(awake, call), world.log)
        XCTAssertTrue(eventually(10) { world.voipPushes() == 2 }, world.log)
        let pushed = world.gateway.requests().filter { $0.lowercased().contains("apns-push-type: voip") }
        for token in ["1a", "1b"] {
            let path = "POST /3/device/\(String(repeating: token, count: 32)) "
            XCTAssertEqual(pushed.filter { $0.hasPrefix(path) }.count, 1, "\(pushed)")
        }
        let first = try world.wake(tablet, seed: 94), second = try world.wake(mac, seed: 95)
        XCTAssertTrue(world.rings(first, call) && world.rings(second, call), world.log)
        XCTAssertEqual(world.bindings(), 3)
        world.harness.perform(second) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.answered(call: call)) })
        for agent in [awake, first] {
            XCTAssertTrue(eventually(10) { world.harness.events(agent).contains(Call.ended(call, elsewhere: 200)) },
                          "\(world.harness.events(agent))\n\(world.log)")
        }
        XCTAssertEqual(world.backgroundPushes().count, 0, "both woke in time")
    }

    /// The caller gives up before the sleeping device wakes: the awake device is CANCELled without an elsewhere
    /// Reason, and the device woken after is told the call ended unanswered.
    func testAnEarlyCancelTellsTheLateDeviceUnanswered() throws {
        let world = try ForkWorld(.udp)
        defer { world.stop() }
        let awake = try world.awake(seed: 81)
        let account = try world.sleeping(token: "0f", seed: 82)
        let call = world.invite()
        XCTAssertTrue(world.rings(awake, call), world.log)
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, world.log)
        world.harness.perform(world.alice) { _ = $0.cancel(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(awake).contains(.ended(call: call, reason: .cancelled)) },
                      "\(world.harness.events(awake))\n\(world.log)")
        _ = try world.wake(account, seed: 83)
        XCTAssertTrue(eventually(10) { world.backgroundPushes().count == 1 }, world.log)
        let told = try XCTUnwrap(world.backgroundPushes().first)
        XCTAssertTrue(told.contains("\"reason\":\"unanswered\""), told)
        XCTAssertEqual(world.voipPushes(), 1)
    }

    /// An awake device's 486 does not end a call a sleeping device is being woken for (its parking branch holds
    /// the transaction): the woken device takes it.
    func testAnAwakeRefusalLeavesTheCallToTheWakingDevice() throws {
        let world = try ForkWorld(.tcp)
        defer { world.stop() }
        let awake = try world.awake(seed: 61)
        let account = try world.sleeping(token: "0e", seed: 62)
        let call = world.invite()
        XCTAssertTrue(world.rings(awake, call), world.log)
        world.harness.perform(awake) { _ = $0.decline(call, status: 486, now: $1) }
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, world.log)
        let woken = try world.wake(account, seed: 63)
        XCTAssertTrue(world.rings(woken, call), "\(world.harness.events(woken))\n\(world.log)")
        XCTAssertFalse(world.harness.events(world.alice).contains(.failed(call: call, status: 486)))
        world.harness.perform(woken) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.answered(call: call)) },
                      "\(world.harness.events(world.alice))")
    }

    /// Two devices answer at once (RFC 3261 §13.2.2.4): Kamailio relays both 2xx, the caller ACKs both, keeps one
    /// and ends the other with a BYE whose Reason says the call was taken elsewhere.
    func testTwoAnswersAtOnceAreBothAckedAndOneIsByedElsewhere() throws {
        let world = try ForkWorld(.udp)
        defer { world.stop() }
        let first = try world.awake(seed: 71), second = try world.awake(seed: 72)
        let call = world.invite()
        XCTAssertTrue(world.rings(first, call) && world.rings(second, call), world.log)
        world.harness.queue.sync {
            world.harness.pool.perform(first) { _ = $0.answer(call, now: $1) }
            world.harness.pool.perform(second) { _ = $0.answer(call, now: $1) }
        }
        XCTAssertTrue(eventually(10) { world.harness.counters().forks["second_answer"] == 1 },
                      "\(world.harness.counters().forks)\n\(world.log)")
        let byed = Call.ended(call, elsewhere: 200)
        XCTAssertTrue(eventually(10) { [first, second].contains { world.harness.events($0).contains(byed) } },
                      "\(world.harness.events(first))\n\(world.harness.events(second))")
        XCTAssertEqual(world.harness.events(world.alice).filter { $0 == .answered(call: call) }.count, 1)
    }

    /// An awake device and a sleeping one: both ring (the sleeping one after its wake REGISTER, which replaces its
    /// own stale binding: two bindings, not three), the woken one answers, the awake one is CANCELled with
    /// `Reason: SIP;cause=200`.
    private func awakeAndWoken(_ transport: SIPTransportKind) throws {
        let world = try ForkWorld(transport)
        defer { world.stop() }
        let awake = try world.awake(seed: 21)
        let account = try world.sleeping(token: "0d", seed: 22)
        let call = world.invite()
        XCTAssertTrue(world.rings(awake, call), world.log)
        XCTAssertTrue(eventually(10) { world.voipPushes() == 1 }, world.log)
        let woken = try world.wake(account, seed: 23)
        XCTAssertTrue(world.rings(woken, call), "\(world.harness.events(woken))\n\(world.log)")
        XCTAssertEqual(world.bindings(), 2, "the wake REGISTER replaced its own binding")
        world.harness.perform(woken) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { world.harness.events(world.alice).contains(.answered(call: call)) },
                      "\(world.harness.events(world.alice))")
        XCTAssertTrue(eventually(10) { world.harness.events(awake).contains(Call.ended(call, elsewhere: 200)) },
                      "\(world.harness.events(awake))\n\(world.log)")
        XCTAssertEqual(world.voipPushes(), 1)
        XCTAssertFalse(world.kamailio.log.contains("ERROR"), world.log)
    }
}

/// The event of a call ended by a CANCEL or BYE whose Reason names another device's answer (200) or decline.
private enum Call {
    static func ended(_ call: String, elsewhere cause: Int) -> SIPEvent {
        .ended(call: call, reason: .elsewhere(cause: cause))
    }
}
