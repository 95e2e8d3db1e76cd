@testable import CallstormCLI
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26: the examples in Scenarios/sip/ run against a real Kamailio (started as a user process on a free
/// port, stopped by PID): ≥ 99 % of calls complete, the books balance, and the SIP figures are in the report.
/// Two runs, each as broad as one Kamailio allows (the built-in flows between registered devices mixed in one run;
/// the wake-up path with every answer given before its INVITE): the embedded loop pins each flow's details
/// (DriverTests: SIPCallFlowTests, SIPWakePathTests, SIPAnswerBeforeInviteTests); these prove the same against
/// real Kamailio.
final class SIPRunTests: XCTestCase {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    /// The example `name`, pointed at `kamailio` (and its push gateway at `pushPort` when given).
    private func example(_ name: String, kamailio: KamailioProcess, pushPort: Int? = nil) throws -> String {
        var text = try String(contentsOf: Self.examples.appendingPathComponent("\(name).yaml"), encoding: .utf8)
        text = text.replacingOccurrences(of: "127.0.0.1:5060", with: "127.0.0.1:\(kamailio.port)")
        if let pushPort { text = text.replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(pushPort)") }
        return text
    }

    private func run(_ name: String, kamailio: KamailioProcess, pushPort: Int? = nil,
                     edit: (String) -> String = { $0 }, check: (RunCommand.Outcome, [String: Int64]) throws -> Void) throws {
        let dir = try TemporaryDirectory.make("sip-\(name)")
        defer { TemporaryDirectory.remove(dir) }
        let text = edit(try example(name, kamailio: kamailio, pushPort: pushPort))
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(started),
                                    "\(c) \(outcome.result.notes) \(kamailio.log.suffix(2000))")
        let books = Books(counters: c)
        XCTAssertTrue(books.balanced, "\(books.problems)")
        XCTAssertGreaterThan(c["sip.requests_sent.INVITE"] ?? 0, 0, "\(c)")
        // The history checker judges the SIP calls (their dialogs at both ends) like any other: nothing broken.
        let history = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertGreaterThan(history.report.operations, 0)
        XCTAssertEqual(history.report.violations, [], "\(history.report.violations.prefix(3))")
        try check(outcome, c)
    }

    /// outgoing.yaml with its mix widened to the other built-in flows of the examples (declined.yaml,
    /// caller-cancels.yaml and hold-resume.yaml are outgoing.yaml with one of them as the whole mix) at twice the
    /// rate: each flow's calls go through one Kamailio in one run, and each flow shows its SIP messages.
    func testEveryBuiltInFlowBetweenRegisteredDevicesCompletesThroughKamailio() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let flows = ["outgoing-1to1", "declined", "caller-cancels", "hold-resume"]
        let mixed = { (text: String) in
            text.replacingOccurrences(of: "mix: { outgoing-1to1: 100 }",
                                      with: "mix: { \(flows.map { "\($0): 25" }.joined(separator: ", ")) }")
                .replacingOccurrences(of: "rate: 5/s", with: "rate: 10/s")
        }
        XCTAssertTrue(mixed(try example("outgoing", kamailio: kamailio)).contains("caller-cancels: 25, hold-resume: 25 }"))
        try run("outgoing", kamailio: kamailio, edit: mixed) { outcome, c in
            for flow in flows {
                XCTAssertGreaterThan(c["flow.\(flow).completed"] ?? 0, 0, "no \(flow) call: \(c)")
            }
            // outgoing-1to1: rung, answered and ended with BYE, its figures measured.
            let histograms = outcome.result.recorder.histograms
            for metric in [MetricName.postDialDelay, MetricName.setupTime, MetricName.answerToAck] {
                XCTAssertGreaterThan(histograms[metric]?.totalCount ?? 0, 0, "no \(metric) samples: \(c)")
            }
            XCTAssertGreaterThan(c["sip.responses_received.180"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.requests_sent.BYE"] ?? 0, 0, "\(c)")
            // declined: the callee's 603 ends the call at the caller.
            XCTAssertGreaterThan(c["sip.responses_sent.603"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.responses_received.603"] ?? 0, 0, "\(c)")
            // caller-cancels: CANCEL while the callee rings, 487 to the INVITE.
            XCTAssertGreaterThan(c["sip.requests_sent.CANCEL"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.responses_received.487"] ?? 0, 0, "\(c)")
            // hold-resume: the first INVITE of each call, and each hold and resume a re-INVITE of its own (in
            // hold-resume.yaml alone: at least 3 INVITEs a call).
            XCTAssertGreaterThan(c["action.pause.fulfilled"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["action.resume.fulfilled"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThanOrEqual(c["sip.requests_sent.INVITE"] ?? 0, (c["calls.started"] ?? 0)
                + (c["action.pause.fulfilled"] ?? 0) + (c["action.resume.fulfilled"] ?? 0), "\(c)")
            // Per-device sockets (the default): no shared socket's books.
            XCTAssertNil(c["sip.shared_socket.reads"], "\(c)")
        }
    }

    /// outgoing.yaml with `sockets: shared` and the built-in flows mixed: every device of the worker on one UDP
    /// socket, each of Kamailio's requests and responses handed to its device by the `csdev` parameter; the run's
    /// calls complete, its books balance and the history checker finds nothing, and no datagram went astray.
    func testEveryBuiltInFlowCompletesThroughKamailioWithTheDevicesOnOneSharedSocket() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let shared = { (text: String) in
            text.replacingOccurrences(of: "device: { signaling: sip, transport: udp }",
                                      with: "device: { signaling: sip, transport: udp, sockets: shared }")
                .replacingOccurrences(of: "mix: { outgoing-1to1: 100 }", with: "mix: { outgoing-1to1: 25, "
                                      + "declined: 25, caller-cancels: 25, hold-resume: 25 }")
        }
        XCTAssertTrue(shared(try example("outgoing", kamailio: kamailio)).contains("sockets: shared"))
        try run("outgoing", kamailio: kamailio, edit: shared) { _, c in
            XCTAssertGreaterThan(c["action.pause.fulfilled"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.responses_received.487"] ?? 0, 0, "\(c)")
            XCTAssertNil(c["sip.stray.no_device"], "\(c)")
            // The Driver switched the mode on: every datagram came through the one socket's reads.
            let reads = c["sip.shared_socket.reads"] ?? 0
            XCTAssertGreaterThan(reads, 0, "\(c)")
            XCTAssertGreaterThanOrEqual(c["sip.shared_socket.datagrams"] ?? 0, reads, "\(c)")
        }
    }

    /// Kamailio with the push route, pushing to callstorm's gateway on `pushPort` with a fresh provider token.
    private func pushingKamailio(pushPort: Int) throws -> KamailioProcess {
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        return try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                            "PUSH_JWT=\"\(jwt)\""])
    }

    /// incoming-wake.yaml with every user answering the moment the push is reported, before the wake REGISTER has
    /// even left: the wake-up path's figures, the push's caller handle and the report's files, and every answer
    /// held for its INVITE and fulfilled, in one run.
    func testSleepingDevicesWokenByAPushRegisterAndTakeTheCallAndAnAnswerBeforeTheInviteWaitsForIt() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        let atOnce = { (text: String) in
            text.replacingOccurrences(of: "answer_after: { uniform: [0ms, 100ms] }",
                                      with: "answer_after: { constant: 0ms }")
        }
        XCTAssertTrue(atOnce(try example("incoming-wake", kamailio: kamailio)).contains("constant: 0ms"))
        try run("incoming-wake", kamailio: kamailio, pushPort: pushPort, edit: atOnce) { outcome, c in
            let histograms = outcome.result.recorder.histograms
            for metric in [MetricName.pushToReport, MetricName.inviteToPush, MetricName.pushToRegister,
                           MetricName.registerToInvite, MetricName.postDialDelay, MetricName.setupTime] {
                XCTAssertGreaterThan(histograms[metric]?.totalCount ?? 0, 0, "no \(metric) samples: \(c)")
            }
            XCTAssertEqual(c[MetricName.pushDeadlineMissed] ?? 0, 0, "\(c)")
            // Kamailio's push names the caller by its address of record, the SIP device's handle: no defect.
            XCTAssertGreaterThan(c[MetricName.callerHandlesChecked] ?? 0, 0, "\(c)")
            XCTAssertTrue(c.keys.filter { $0.hasPrefix("handles.caller_") && $0 != MetricName.callerHandlesChecked }
                .isEmpty, "\(c.filter { $0.key.hasPrefix("handles.") })")
            XCTAssertGreaterThan(c["sip.requests_received.INVITE"] ?? 0, 0, "\(c)")
            // The answers given before their INVITE waited for it and went out when it came.
            XCTAssertEqual(c[MetricName.answerBeforeInvite], c["action.join.started"], "every answer waited: \(c)")
            XCTAssertEqual(c["action.join.fulfilled"], c["action.join.started"], "\(c)")
            let dir = outcome.runDirectory
            let csv = try String(contentsOf: dir.appendingPathComponent("summary.csv"), encoding: .utf8)
            let json = try String(contentsOf: dir.appendingPathComponent("summary.json"), encoding: .utf8)
            let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
            for name in [MetricName.inviteToPush, MetricName.pushToRegister, MetricName.registerToInvite] {
                XCTAssertTrue(csv.contains(name), "summary.csv lacks \(name)")
                XCTAssertTrue(json.contains(name), "summary.json lacks \(name)")
                XCTAssertTrue(html.contains(name), "report.html lacks \(name)")
            }
        }
    }
}
