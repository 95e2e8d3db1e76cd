@testable import Driver
import Metrics
import XCTest

/// The built-in flows over SIP between awake devices on the embedded loop (what SIPRunTests and
/// SIPOutsideCalleeRunTests pin through Kamailio): every call completes, the books balance, and each flow's SIP
/// messages and figures are there, and the history checker finds nothing broken.
final class SIPCallFlowTests: XCTestCase {
    private func run(_ flow: String, transport: String = "udp") throws -> Recorder {
        let yaml = SIPRig.scenario(devices: 8, rate: "2/s", seconds: 2, sleep: false, transport: transport,
                                   answerAfter: "{ constant: 100ms }", mix: "{ \(flow): 100 }")
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsStarted], 4, "\(flow): \(c.sorted { $0.key < $1.key })")
        XCTAssertEqual(c[MetricName.callsCompleted], 4, "\(flow): \(c.sorted { $0.key < $1.key })")
        XCTAssertTrue(Books(counters: c).balanced, "\(flow): \(Books(counters: c).problems)")
        // The history checker judges the SIP calls (their dialogs at both ends) like any other: nothing broken.
        let check = try rig.check()
        XCTAssertGreaterThan(check.report.operations, 0, flow)
        XCTAssertEqual(check.report.violations, [], "\(flow): \(check.describe)")
        return recorder
    }

    func testOutgoingCallsRingAreAnsweredAndEndWithByeWithTheirFiguresMeasured() throws {
        let recorder = try run("outgoing-1to1")
        let c = recorder.counters
        for metric in [MetricName.postDialDelay, MetricName.setupTime, MetricName.answerToAck] {
            XCTAssertEqual(recorder.histograms[metric]?.totalCount, 4, "\(metric): \(c)")
        }
        XCTAssertEqual(c["sip.responses_received.180"], 4, "\(c)")
        XCTAssertEqual(c["sip.requests_sent.BYE"], 4, "\(c)")
    }

    func testDeclinedCallsEndAtTheCallerWith603() throws {
        let c = try run("declined").counters
        XCTAssertEqual(c["sip.responses_sent.603"], 4, "\(c)")
        XCTAssertEqual(c["sip.responses_received.603"], 4, "\(c)")
    }

    func testTheCallerCancelsWhileTheCalleeRingsAndGets487() throws {
        let c = try run("caller-cancels").counters
        XCTAssertEqual(c["sip.requests_sent.CANCEL"], 4, "\(c)")
        XCTAssertEqual(c["sip.responses_received.487"], 4, "\(c)")
    }

    func testHoldAndResumeGoOutAsReInvites() throws {
        let c = try run("hold-resume").counters
        XCTAssertEqual(c["sip.requests_sent.INVITE"], 3 * 4, "the INVITE, the hold and the resume: \(c)")
        XCTAssertEqual(c["action.pause.fulfilled"], 4, "\(c)")
        XCTAssertEqual(c["action.resume.fulfilled"], 4, "\(c)")
    }

    /// An action answered over SIP takes its timeout off the worker's wheel: none is left once the calls are over
    /// (each waited `action_timeout` there, to fire and find its action gone).
    func testAnsweredActionsLeaveNoTimeoutOnTheWheel() throws {
        let yaml = SIPRig.scenario(devices: 8, rate: "2/s", seconds: 2, sleep: false,
                                   answerAfter: "{ constant: 100ms }", mix: "{ hold-resume: 100 }")
        let rig = try SIPRig(yaml)
        rig.network.latencyNanos = 1_000_000
        rig.registerAll()
        rig.start()
        XCTAssertTrue(rig.loop.run(until: rig.clock.nowNanos() + 60 * SIPRig.second) { rig.drained })
        let actionTimeouts = rig.loop.sync {
            rig.worker.wheel.waiting().filter { event in
                guard case .signaling(let timer) = event, case .action? = SIPSignalingTimer(timer) else { return false }
                return true
            }.count
        }
        let c = rig.finish().counters
        XCTAssertEqual(c[MetricName.callsCompleted], 4, "\(c)")
        XCTAssertEqual(c["action.resume.fulfilled"], 4, "\(c)")
        XCTAssertEqual(actionTimeouts, 0)
    }

    func testOutgoingCallsOverTCPCompleteWithNoRetransmission() throws {
        let c = try run("outgoing-1to1", transport: "tcp").counters
        XCTAssertEqual(c["sip.responses_received.180"], 4, "\(c)")
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], "no retransmission over a reliable transport: \(c)")
    }

    /// Devices call a party callstorm does not simulate (`outside: { service: { uri } }`), a UAS registered at the
    /// proxy that answers every INVITE (SIPp's uas.xml): every call completes on both sides.
    func testDevicesCallAnOutsideURIAnsweredByAnOutsideUASAndEveryCallCompletesOnBothSides() throws {
        let yaml = """
            name: sip-outside-callee
            seed: 26
            devices: 4
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
                  - { name: answered, role: caller, do: await_answer }
                  - { wait: talk }
                  - { name: hangup, role: caller, do: end }
            load: [ { hold: { rate: 2/s, for: 2s } } ]
            mix: { call-service: 100 }
            behavior:
              talk: { constant: 300ms }
            drain: 10s
            action_timeout: 5s

            """
        let rig = try SIPRig(yaml)
        let echo = SIPRig.OutsideParty(rig: rig, user: "echo", registers: true, answers: true)
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsStarted], 4, "\(c)")
        XCTAssertEqual(c[MetricName.callsCompleted], 4, "\(c)")
        XCTAssertNil(c[MetricName.callsStartedByOutside], "callstorm placed these calls: \(c)")
        XCTAssertEqual(c["sip.requests_sent.BYE"], 4, "\(c)")
        XCTAssertNil(c["sip.requests_sent.CANCEL"], "await_answer held every hang-up until the 200: \(c)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        for metric in [MetricName.setupTime, MetricName.postDialDelay, MetricName.fulfillment("end")] {
            XCTAssertEqual(recorder.histograms[metric]?.totalCount, 4, "\(metric): \(c)")
        }
        XCTAssertEqual(echo.counters.requestsReceived["INVITE"], 4)
        XCTAssertEqual(echo.counters.requestsReceived["BYE"], 4, "each call ended with the caller's BYE")
    }
}
