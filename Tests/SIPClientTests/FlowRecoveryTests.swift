@testable import SIPClient
import SIP
import XCTest

/// Flow recovery's agent side (`SIPReconnectPolicy`, `SIPUserAgent+Flow`): RFC 5626 §4.5's back-off, seeded, and
/// the steps a pool drives after a connection broke (the pool's sockets are exercised end to end by
/// CallstormCLITests.SIPStormRunTests against a restarted Kamailio).
final class FlowRecoveryTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testExponentialWaitIsRFC5626sFormulaTimesAFactorBetweenHalfAndWhole() {
        let policy = SIPReconnectPolicy(backoff: .exponential, baseNanos: second, maxNanos: 30 * second)
        XCTAssertEqual(policy.wait(afterFailures: 1, unit: 0), second / 2)
        XCTAssertEqual(policy.wait(afterFailures: 1, unit: 1), second)
        XCTAssertEqual(policy.wait(afterFailures: 2, unit: 1), 2 * second)
        XCTAssertEqual(policy.wait(afterFailures: 3, unit: 0.5), 3 * second)  // 4 s × 75 %
        XCTAssertEqual(policy.wait(afterFailures: 6, unit: 1), 30 * second, "32 s is capped at max-time")
        XCTAssertEqual(policy.wait(afterFailures: 500, unit: 0), 15 * second)
        let fixed = SIPReconnectPolicy(backoff: .fixed, baseNanos: 2 * second)
        XCTAssertEqual(fixed.wait(afterFailures: 7, unit: 0), second)
        XCTAssertEqual(fixed.wait(afterFailures: 1, unit: 1), 2 * second)
    }

    private func agent(_ policy: SIPReconnectPolicy, seed: UInt64 = 9) -> SIPUserAgent {
        let agent = SIPUserAgent(account: SIPAccount(user: "alice", domain: "127.0.0.1", password: "a"),
                                 transport: .tcp, localPort: 40_000, seed: seed)
        agent.reconnect = policy
        return agent
    }

    /// The first loss reconnects at once; each loss while recovering (a refused connect) waits the back-off, within
    /// the formula's bounds and the same for the same seed; the 200 ends the recovery with its length.
    func testRetriesFollowTheBackOffAndTheSameSeedWaitsTheSame() {
        let policy = SIPReconnectPolicy(backoff: .exponential, baseNanos: second, maxNanos: 30 * second)
        func waits(seed: UInt64) -> [UInt64] {
            let alice = agent(policy, seed: seed)
            XCTAssertTrue(alice.connectionLost(now: 10 * second), "the first loss reconnects at once")
            XCTAssertEqual(alice.takeEvents(), [.flow(.lost)])
            var now = 10 * second
            var waited: [UInt64] = []
            for failure in 1...7 {
                XCTAssertFalse(alice.connectionLost(now: now))
                let due = try! XCTUnwrap(alice.nextDeadline)
                let wait = due - now
                let ceiling = min(30 * second, second << UInt64(failure - 1))
                XCTAssertTrue(wait >= ceiling / 2 && wait <= ceiling, "failure \(failure): \(wait) of \(ceiling)")
                XCTAssertFalse(alice.flowRetryDue(due - 1))
                XCTAssertTrue(alice.flowRetryDue(due))
                waited.append(wait)
                now = due
            }
            alice.reregister(now: now, reconnected: true)
            XCTAssertEqual(alice.takeEvents(), [.flow(.reconnected)])
            XCTAssertEqual(alice.recoveryHeard(.registrationFailed(status: 503), now: now + 1),
                           .reregisterFailed(status: 503))
            XCTAssertEqual(alice.recoveryHeard(.registered(expires: 60), now: now + 2),
                           .reregistered(afterNanos: now + 2 - 10 * second))
            XCTAssertFalse(alice.recovering)
            XCTAssertNil(alice.recoveryHeard(.registered(expires: 60), now: now + 3), "a refresh is no recovery")
            return waited
        }
        XCTAssertEqual(waits(seed: 9), waits(seed: 9))
        XCTAssertNotEqual(waits(seed: 9), waits(seed: 10))
    }

    /// `none` keeps the old behaviour: every loss reconnects, nothing is told, no retry is planned.
    func testNoneReconnectsWithoutARecovery() {
        let alice = agent(.none)
        XCTAssertTrue(alice.connectionLost(now: second))
        XCTAssertTrue(alice.connectionLost(now: 2 * second))
        XCTAssertEqual(alice.takeEvents(), [])
        XCTAssertFalse(alice.recovering)
        XCTAssertNil(alice.nextDeadline)
    }
}
