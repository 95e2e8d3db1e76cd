import Determinism
import SIP
import SIPClient
import XCTest

/// The pool's one timer is armed for the earliest agent deadline (no periodic tick): under a clock the test moves
/// by hand, a transaction's timer fires when the clock reaches its deadline and never before it.
final class PoolTimerTests: XCTestCase {
    func testTimerEFiresWhenAHandMovedClockReachesItsDeadlineAndNotBefore() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let clock = ManualClock()
        let harness = try PoolHarness(proxyPort: proxy.port, clock: clock)
        defer { harness.close() }
        let agent = try harness.add(SIPAccount(user: "carol", domain: "127.0.0.1", password: "callstorm"), .udp,
                                    seed: 7)
        harness.perform(agent) { $0.register(now: $1) }
        XCTAssertEqual(proxy.receive(timeoutMillis: 5_000).map { SIPStartLine.label($0.bytes) }, "REGISTER")

        // T1 (500 ms) is Timer E's first interval: 1 ns short of it nothing is sent again.
        clock.advance(by: 500_000_000 - 1)
        XCTAssertNil(proxy.receive(timeoutMillis: 300), "Timer E fired before its deadline")
        XCTAssertEqual(harness.counters().retransmissionsSent["REGISTER"] ?? 0, 0)

        clock.advance(by: 1)
        XCTAssertEqual(proxy.receive(timeoutMillis: 5_000).map { SIPStartLine.label($0.bytes) }, "REGISTER",
                       "Timer E's retransmission at T1")
        XCTAssertEqual(harness.counters().retransmissionsSent["REGISTER"], 1)

        // The next interval is 2 × T1 (1 s): again nothing 1 ns short of it, then the second retransmission.
        clock.advance(by: 1_000_000_000 - 1)
        XCTAssertNil(proxy.receive(timeoutMillis: 300), "the second retransmission came early")
        clock.advance(by: 1)
        XCTAssertEqual(proxy.receive(timeoutMillis: 5_000).map { SIPStartLine.label($0.bytes) }, "REGISTER")
        XCTAssertEqual(harness.counters().retransmissionsSent["REGISTER"], 2)
    }
}
