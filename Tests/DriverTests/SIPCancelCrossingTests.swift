@testable import Driver
import Metrics
import SIPClient
import SIPEmbedded
import XCTest

/// A caller that CANCELs before anything rang, on the embedded loop (issue 32): the twin proxy answers the
/// CANCEL's INVITE 487 itself (no branch rang) and forwards a 2xx its branch sends after that (RFC 6026 §8.1).
/// The caller keeps its cancelled call 64*T1 after the 487 for such a 2xx: ACKs it and ends it with a BYE at once,
/// so the callee is not left in a call until its timers; every end writes the caller's dialog line.
final class SIPCancelCrossingTests: XCTestCase {
    private static let proxyPort = 5060

    /// A device calls outside party `echo` and hangs up 300 ms later, before any 180.
    private static let scenario = """
        name: sip-cancel-crossing
        seed: 32
        devices: 2
        workers: 1
        target: { sip: { registrar: "127.0.0.1:5060" } }
        push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
        device: { signaling: sip, transport: udp }
        flows:
          call-service:
            roles: [caller, service]
            outside: { service: { uri: "sip:echo@127.0.0.1" } }
            steps:
              - { name: dial, role: caller, do: start, to: [service] }
              - { wait: 300ms }
              - { name: hangup, role: caller, do: end }
        load: [ { hold: { rate: 1/s, for: 1s } } ]
        mix: { call-service: 100 }
        drain: 60s
        action_timeout: 10s

        """

    /// The caller's dialog lines (`state[ reason]`), in order.
    private func dialogLines(_ rig: SIPRig) throws -> [String] {
        try rig.history("dialog").map { line in
            ["state", "reason"].compactMap { name -> String? in
                guard let start = line.range(of: "\"\(name)\":\"")?.upperBound,
                      let end = line[start...].firstIndex(of: "\"") else { return nil }
                return String(line[start..<end])
            }.joined(separator: " ")
        }
    }

    /// Runs the call with `echo`'s 200 held until the caller got its 487, then released; returns the counters.
    func testA200ThatCrossedTheCancelAndCameAfterThe487IsAckedAndEndedByABye() throws {
        let rig = try SIPRig(Self.scenario, history: true)
        let echo = SIPRig.OutsideParty(rig: rig, user: "echo", registers: true, answers: true, rings: false)
        let echoPort = try XCTUnwrap(echo.pool.agent(echo.agent)?.localPort)
        rig.network.hold = { $0.label == "200" && $0.from.port == echoPort }
        rig.registerAll()
        rig.start()
        let network = rig.network
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) {
            network.delivered.contains { $0.label == "487" && $0.from.port == Self.proxyPort }
        }, "the proxy answered the CANCEL's INVITE 487 itself")
        network.hold = nil
        XCTAssertEqual(network.release { _ in true }, 1, "echo's 200 was held")
        let byed = { echo.events[echo.agent, default: []].contains { event in
            if case .ended(_, .remoteBye) = event { return true }
            return false
        } }
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { byed() },
                      "echo's call ended by the caller's BYE, not by its timers: \(echo.events)")
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained })
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(echo.counters.requestsReceived["ACK"], 1, "the 200 was ACKed")
        XCTAssertEqual(c["sip.requests_sent.BYE"], 1, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "the caller's own CANCEL is no failure: \(all)")
        XCTAssertNil(c[MetricName.callsFailed], all)
        XCTAssertEqual(c["calls.unanswered.cancelled"], 1, all)
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        XCTAssertEqual(try dialogLines(rig), ["confirmed", "terminated bye"],
                       "the caller's dialog was answered after all, and ended by its BYE")
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }

    /// No 2xx comes: the caller's `terminated cancelled` line is written although nothing rang before (once 64*T1
    /// passed after the 487, `.settled`, or at the run's end).
    func testACancelBeforeAnyRingingWritesTheTerminatedCancelledLine() throws {
        let rig = try SIPRig(Self.scenario, history: true)
        let echo = SIPRig.OutsideParty(rig: rig, user: "echo", registers: true, rings: false)
        rig.registerAll()
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 30 * SIPRig.second) { rig.drained })
        _ = rig.loop.run(until: rig.clock.nowNanos() + 33 * SIPRig.second) { false }  // past 64*T1
        let c = rig.finish().counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["sip.responses_received.487"], 1, all)
        XCTAssertEqual(c[MetricName.callsCompleted], 1, all)
        XCTAssertEqual(c["calls.unanswered.cancelled"], 1, all)
        XCTAssertNil(echo.counters.requestsReceived["ACK"], "no 2xx, nothing to ACK")
        XCTAssertEqual(try dialogLines(rig), ["terminated cancelled"])
        let check = try rig.check()
        XCTAssertEqual(check.report.violations, [], check.describe)
    }
}
