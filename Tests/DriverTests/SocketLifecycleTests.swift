import XCTest
@testable import Driver
import Metrics
import Scenario

/// The device socket's lifecycle as a value: when each mode opens and closes, the seeded backoff after a loss,
/// the latencies it records, and the books, all without a socket (times are plain numbers: a manual clock).
final class SocketLifecycleTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func machine(_ mode: SocketMode, linger: UInt64 = 0, seed: UInt64 = 7) -> SocketLifecycle {
        SocketLifecycle(mode: mode, reconnect: SocketReconnect(baseNanos: 100 * ms, maxNanos: 1000 * ms, jitter: 0.5),
                        lingerNanos: linger, seed: seed, devices: [10, 11])
    }

    private func counters(_ effects: [SocketEffect]) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for case .count(let name, let n) in effects { out[name.name, default: 0] += n }
        return out
    }

    private func records(_ effects: [SocketEffect]) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for case .record(let name, let micros) in effects { out[name.name] = micros }
        return out
    }

    func testOnPushOpensOnTheVoIPPushMeasuresPushToSocketAndStateAndClosesAfterTheLinger() {
        var m = machine(.onPush, linger: 500 * ms)
        m.registered(0, now: 0)
        XCTAssertEqual(m.take(), [], "an on_push app has no socket in the background")
        m.pushReported(0, conversation: "c1", acceptedNanos: 1000 * ms, now: 1002 * ms)
        XCTAssertEqual(m.take(), [.open(device: 0)])
        m.opened(0, now: 1010 * ms)
        var effects = m.take()
        XCTAssertEqual(records(effects)[MetricName.socketConnect], 8000)
        XCTAssertEqual(records(effects)[MetricName.pushToSocket], 10_000)
        XCTAssertTrue(effects.contains(.ready(device: 0)))
        m.heard(0, about: "c1", now: 1012 * ms)
        m.heard(0, about: "c1", now: 1013 * ms)
        XCTAssertEqual(m.take(), [.record(.pushToState, micros: 12_000)], "only the first message counts")
        m.idle(0, now: 2000 * ms)
        let linger = SocketTimer.linger(device: 0, token: m[0].token)
        XCTAssertEqual(m.take(), [.arm(linger, at: 2500 * ms)])
        m.fired(linger, live: false, now: 2500 * ms)
        XCTAssertEqual(m.take(), [.close(device: 0)])
        m.closed(0, byServer: false, lost: false, code: 1000, protocolKind: nil, live: false, now: 2501 * ms)
        effects = m.take()
        XCTAssertEqual(counters(effects), [MetricName.socketClosedDevice: 1, MetricName.socketClose(1000): 1])
        XCTAssertEqual(m[0].phase, .closed)
    }

    func testANewCallBeforeTheLingerEndsKeepsTheSocket() {
        var m = machine(.onPush, linger: 500 * ms)
        m.pushReported(0, conversation: "c1", acceptedNanos: 0, now: 0)
        m.opened(0, now: ms)
        m.idle(0, now: 10 * ms)
        _ = m.take()
        let stale = SocketTimer.linger(device: 0, token: m[0].token)
        m.pushReported(0, conversation: "c2", acceptedNanos: 20 * ms, now: 20 * ms)
        m.fired(stale, live: true, now: 510 * ms)
        XCTAssertFalse(m.take().contains(.close(device: 0)))
        XCTAssertEqual(m[0].phase, .open)
    }

    func testForegroundOpensOnlyWhenTheUserActs() {
        var m = machine(.foreground)
        m.pushReported(1, conversation: "c", acceptedNanos: 0, now: 0)
        XCTAssertEqual(m.take(), [])
        m.userActs(1, now: 5 * ms)
        XCTAssertEqual(m.take(), [.open(device: 1)])
        m.opened(1, now: 6 * ms)
        XCTAssertNil(records(m.take())[MetricName.pushToSocket], "the push did not open this socket")
    }

    func testAlwaysOpensAtRegistrationAndReconnectsAfterALossWithSeededGrowingBackoff() {
        func delays(seed: UInt64) -> [UInt64] {
            var m = machine(.always, seed: seed)
            m.registered(0, now: 0)
            XCTAssertEqual(m.take(), [.open(device: 0)])
            var out: [UInt64] = []
            var now: UInt64 = 0
            for _ in 0..<5 {
                m.closed(0, byServer: false, lost: true, code: 1006, protocolKind: nil, live: false, now: now)
                guard case .arm(let timer, let at)? = m.take().last else {
                    XCTFail("a lost always-socket reconnects")
                    return out
                }
                out.append(at - now)
                now = at
                m.fired(timer, live: false, now: now)
                XCTAssertEqual(counters(m.take())[MetricName.socketReconnects], 1)
            }
            return out
        }
        let first = delays(seed: 7)
        XCTAssertEqual(first, delays(seed: 7), "same seed, same backoff")
        XCTAssertNotEqual(first, delays(seed: 8))
        for (attempt, delay) in first.enumerated() {
            let cap = min(100 * ms << UInt64(attempt), 1000 * ms)
            XCTAssertTrue(delay <= cap && delay > cap / 2, "attempt \(attempt): \(delay) within (cap/2, cap]")
        }
    }

    func testALostSocketCountsAsLostAndAProtocolErrorByKindAndTheBooksBalanceAtStop() {
        var m = machine(.onPush)
        var all: [SocketEffect] = []
        for device in 0..<2 {
            m.pushReported(device, conversation: "c", acceptedNanos: 0, now: 0)
            m.opened(device, now: ms)
        }
        m.closed(0, byServer: false, lost: true, code: 1002, protocolKind: "bad_opcode", live: true, now: 2 * ms)
        all += m.take()
        XCTAssertTrue(all.contains { if case .arm(.reconnect, _) = $0 { return true } else { return false } },
                      "an on_push socket lost during a live call comes back")
        m.stop()
        all += m.take()
        let c = counters(all)
        XCTAssertEqual(c[MetricName.socketOpened], 2)
        XCTAssertEqual(c[MetricName.socketLost], 1)
        XCTAssertEqual(c[MetricName.socketProtocol("bad_opcode")], 1)
        XCTAssertEqual(c[MetricName.socketOpenAtStop], 1)
        let books = Books(counters: c)
        XCTAssertEqual(books.sockets?.balanced, true, books.problems.joined())
    }

    func testNoneDoesNothing() {
        var m = machine(.none)
        m.registered(0, now: 0)
        m.pushReported(0, conversation: "c", acceptedNanos: 0, now: 0)
        m.userActs(0, now: 0)
        m.idle(0, now: 0)
        m.stop()
        XCTAssertEqual(m.take(), [])
    }
}
