@testable import CallstormCLI
import Credentials
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 26: the examples in Scenarios/sip/ run against a real Kamailio (started as a user process on a free
/// port, stopped by PID): ≥ 99 % of calls complete, the books balance, and the SIP figures are in the report.
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

    private func run(_ name: String, kamailio: KamailioProcess, pushPort: Int? = nil, tcp: Bool = false,
                     edit: (String) -> String = { $0 }, check: (RunCommand.Outcome, [String: Int64]) throws -> Void) throws {
        let dir = try TemporaryDirectory.make("sip-\(name)")
        defer { TemporaryDirectory.remove(dir) }
        var text = try example(name, kamailio: kamailio, pushPort: pushPort)
        if tcp { text = text.replacingOccurrences(of: "transport: udp", with: "transport: tcp") }
        text = edit(text)
        let outcome = try runScenario(text, in: dir)
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

    func testOutgoingCallsBetweenRegisteredDevicesCompleteThroughKamailio() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try run("outgoing", kamailio: kamailio) { outcome, c in
            let histograms = outcome.result.recorder.histograms
            for metric in [MetricName.postDialDelay, MetricName.setupTime, MetricName.answerToAck] {
                XCTAssertGreaterThan(histograms[metric]?.totalCount ?? 0, 0, "no \(metric) samples: \(c)")
            }
            XCTAssertGreaterThan(c["sip.responses_received.180"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.requests_sent.BYE"] ?? 0, 0, "\(c)")
        }
    }

    /// Kamailio with the push route, pushing to callstorm's gateway on `pushPort` with a fresh provider token.
    private func pushingKamailio(pushPort: Int) throws -> KamailioProcess {
        let signer = ProviderTokenSigner(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = try XCTUnwrap(signer.token(issuedAt: Int64(Date().timeIntervalSince1970)))
        return try KamailioProcess(defines: ["WITH_PUSH", "PUSH_URL=\"http://127.0.0.1:\(pushPort)\"",
                                            "PUSH_JWT=\"\(jwt)\""])
    }

    func testSleepingDevicesWokenByAPushReportRegisterAndTakeTheCall() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        try run("incoming-wake", kamailio: kamailio, pushPort: pushPort) { outcome, c in
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

    func testDeclinedCallsEndAtTheCallerWith603() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try run("declined", kamailio: kamailio) { _, c in
            XCTAssertGreaterThan(c["sip.responses_sent.603"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.responses_received.603"] ?? 0, 0, "\(c)")
        }
    }

    func testCallerCancelsWhileTheCalleeRings() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try run("caller-cancels", kamailio: kamailio) { _, c in
            XCTAssertGreaterThan(c["sip.requests_sent.CANCEL"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["sip.responses_received.487"] ?? 0, 0, "\(c)")
        }
    }

    func testHoldAndResumeGoOutAsReINVITEs() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try run("hold-resume", kamailio: kamailio) { _, c in
            // The first INVITE of each call and the hold and resume re-INVITEs.
            XCTAssertGreaterThanOrEqual(c["sip.requests_sent.INVITE"] ?? 0, 3 * (c["calls.started"] ?? 0), "\(c)")
            XCTAssertGreaterThan(c["action.pause.fulfilled"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c["action.resume.fulfilled"] ?? 0, 0, "\(c)")
        }
    }

    func testOutgoingCallsOverTCPComplete() throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        try run("outgoing", kamailio: kamailio, tcp: true) { _, c in
            XCTAssertGreaterThan(c["sip.responses_received.180"] ?? 0, 0, "\(c)")
            XCTAssertNil(c["sip.retransmissions_sent.INVITE"], "no retransmission over a reliable transport: \(c)")
        }
    }

    func testAnAnswerGivenBeforeTheInviteArrivesWaitsForItAndIsCounted() throws {
        let pushPort = try XCTUnwrap(KamailioProcess.freePort())
        let kamailio = try pushingKamailio(pushPort: pushPort)
        defer { kamailio.stop() }
        // The user answers the moment the push is reported, before the wake REGISTER has even left.
        let atOnce = { (text: String) in
            text.replacingOccurrences(of: "answer_after: { uniform: [0ms, 100ms] }",
                                      with: "answer_after: { constant: 0ms }")
        }
        try run("incoming-wake", kamailio: kamailio, pushPort: pushPort, edit: atOnce) { _, c in
            XCTAssertEqual(c[MetricName.answerBeforeInvite], c["action.join.started"], "every answer waited: \(c)")
            XCTAssertEqual(c["action.join.fulfilled"], c["action.join.started"], "\(c)")
        }
    }
}
