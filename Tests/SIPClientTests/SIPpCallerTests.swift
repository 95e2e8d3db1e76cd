import Foundation
import SIP
import SIPClient
import TestSupport
import XCTest

/// SIPp (Debian's sip-tester) as a caller callstorm does not simulate, with the scenario shipped in
/// deploy/sipp/uac.xml, through the shipped Kamailio to our agents: awake ones that answer at once, and a
/// sleeping one that the push wakes.
final class SIPpCallerTests: XCTestCase {
    private static let scenario = KamailioProcess.configuration.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sipp/uac.xml")

    private func sipp(to user: String, kamailio: KamailioProcess, calls: Int, rate: Int, logs: URL) throws
        -> ChildProcess {
        let port = try XCTUnwrap(KamailioProcess.freePort())
        return try ChildProcess.start("/usr/bin/sipp", [
            "-sf", Self.scenario.path, "-s", user, "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(port)",
            "-m", "\(calls)", "-r", "\(rate)", "-timeout", "60s", "-timeout_error", "-nostdin",
        ], in: logs, logs: logs, name: "sipp")
    }

    func testSIPpCallsThroughKamailioAreAnsweredByAnAwakeAgent() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let bob = try harness.add(SIPAccount(user: "bob", domain: domain, password: "callstorm"), .udp, seed: 11)
        harness.perform(bob) { agent, now in
            agent.autoAnswer = true
            agent.register(now: now)
        }
        XCTAssertTrue(eventually(10) { harness.events(bob).contains(.registered(expires: 600)) })
        let logs = try TemporaryDirectory.make("sipp")
        defer { TemporaryDirectory.remove(logs) }
        let caller = try sipp(to: "bob", kamailio: kamailio, calls: 5, rate: 5, logs: logs)
        defer { caller.stop() }
        XCTAssertEqual(caller.wait(seconds: 60), 0, caller.outputText.suffix(3000).description + caller.errorText)
        // SIPp ends a call on the 200 to its BYE; the agent's own event follows on its thread.
        XCTAssertTrue(eventually(5) {
            harness.events(bob).filter { if case .ended(_, .remoteBye) = $0 { return true } else { return false } }
                .count == 5
        }, "\(harness.events(bob)) \(harness.counters())")
        XCTAssertEqual(harness.counters().requestsReceived["INVITE"], 5)
    }

    func testSIPpCallReachesASleepingAgentThatThePushWakes() throws {
        let gateway = try PushCatcher()
        defer { gateway.stop() }
        let kamailio = try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(gateway.port)\""])
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        let domain = "127.0.0.1:\(kamailio.port)"
        let push = PushContactParameters.apnsVoIP(token: String(repeating: "7e", count: 32), team: "ABCD123456",
                                                  bundle: "com.example.app")
        let account = SIPAccount(user: "bob", domain: domain, password: "callstorm", push: push)
        let sleeping = try harness.add(account, .udp, seed: 12)
        harness.perform(sleeping) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(sleeping).contains(.registered(expires: 600)) })
        harness.close(sleeping)

        let logs = try TemporaryDirectory.make("sipp")
        defer { TemporaryDirectory.remove(logs) }
        let caller = try sipp(to: "bob", kamailio: kamailio, calls: 1, rate: 1, logs: logs)
        defer { caller.stop() }
        XCTAssertTrue(eventually(20) { !gateway.requests().isEmpty }, kamailio.log.suffix(2000).description)
        let woken = try harness.add(account, .udp, seed: 13)
        harness.perform(woken) { agent, now in
            agent.autoAnswer = true
            agent.register(now: now)
        }
        XCTAssertEqual(caller.wait(seconds: 60), 0, caller.outputText.suffix(3000).description + caller.errorText)
        XCTAssertTrue(harness.events(woken).contains { if case .incoming = $0 { return true } else { return false } })
        XCTAssertTrue(eventually(5) {
            harness.events(woken).contains { if case .ended(_, .remoteBye) = $0 { return true } else { return false } }
        }, "\(harness.events(woken))")
    }
}
