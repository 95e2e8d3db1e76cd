@testable import CallstormCLI
import Checker
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 36, acceptance 1: users with two and three SIP devices, sleeping and awake mixed (`sleep: 50%`), through
/// the shipped Kamailio's forking routes the run starts (`target.sip.kamailio.fork`), on UDP and on TLS
/// (Scenarios/users/multi-device-sip*.yaml): every call is answered on exactly one device and every other device
/// of the callee user ends joinedElsewhere (declinedElsewhere when one declines), by tm's CANCEL with its RFC 3326
/// Reason or, woken after the answer, by the background push the wake REGISTER gets; `elsewhere.end_delay`
/// measured, none ringing after the answer, checker clean. With `fork: no_late` the late-woken devices ring on:
/// counted (`elsewhere.ringing_after_answer`) and put on the server (the verdict's server defect, the checker's
/// `elsewhere-stops-ringing`), no call failed.
final class MultiDeviceSIPRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { TemporaryDirectory.remove(dir) }
        directories = []
    }

    func testUsersOverUDPAnswerOnOneDeviceAndTheOthersEndElsewhere() throws {
        try assertAnsweredOnOneDeviceEach("multi-device-sip")
    }

    func testUsersOverTLSAnswerOnOneDeviceAndTheOthersEndElsewhere() throws {
        try assertAnsweredOnOneDeviceEach("multi-device-sip-tls")
    }

    func testWithoutTellingLateDevicesTheyRingOnCountedAndPutOnTheServer() throws {
        let (outcome, history) = try run("multi-device-sip", fork: "no_late")
        let c = outcome.result.recorder.counters
        let all = "\(c.filter { $0.key.contains("lsewhere") || $0.key.hasPrefix("calls") || $0.key.hasPrefix("push") })"
        let ringing = c[MetricName.elsewhereRingingAfterAnswer] ?? 0
        XCTAssertGreaterThan(ringing, 0, all)
        XCTAssertEqual(Int64(outcome.result.recorder.histograms[MetricName.elsewhereRingingAfterAnswerDuration]?
            .totalCount ?? 0), ringing, all)
        // Not told: no background push, Kamailio says so; the calls themselves all completed (nothing of
        // callstorm's failed), and the verdict puts the ringing devices on the server.
        XCTAssertNil(c["pushes.received.background"], all)
        XCTAssertTrue(history.kamailioLog.contains("not told"), String(history.kamailioLog.suffix(2000)))
        XCTAssertEqual(c["calls.completed"], c["calls.started"], all)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], all)
        XCTAssertFalse(outcome.verdict.passed)
        XCTAssertTrue(outcome.verdict.reasons.contains { $0.hasPrefix("server defect:") && $0.contains("rang on") },
                      "\(outcome.verdict.reasons)")
        let rules = Set(history.report.violations.map(\.rule))
        XCTAssertEqual(rules, [.elsewhereStopsRinging], "\(history.report.violations.prefix(3))")
    }

    private struct History {
        let report: CheckReport
        let lines: [[String: Any]]
        let kamailioLog: String
    }

    /// The shipped example with `fork` for `target.sip.kamailio.fork`, its run and its history.
    private func run(_ example: String, fork: String = "true") throws -> (RunCommand.Outcome, History) {
        let dir = try TemporaryDirectory.make("multi-device-sip")
        directories.append(dir)
        let yaml = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/users/\(example).yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "fork: true", with: "fork: \(fork)")
        XCTAssertTrue(yaml.contains("fork: \(fork)"))
        let outcome = try runScenario(yaml, in: dir)
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        let text = try String(contentsOf: outcome.runDirectory.appendingPathComponent("history.jsonl"),
                              encoding: .utf8)
        let lines = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let log = (try? String(contentsOf: outcome.runDirectory.appendingPathComponent("kamailio.log"),
                               encoding: .utf8)) ?? ""
        return (outcome, History(report: check.report, lines: lines, kamailioLog: log))
    }

    private func assertAnsweredOnOneDeviceEach(_ example: String) throws {
        let (outcome, history) = try run(example)
        let c = outcome.result.recorder.counters
        let all = "\(example): \(outcome.verdict.reasons) \(outcome.result.notes.prefix(5)) "
            + "\(c.sorted { $0.key < $1.key }) \(history.kamailioLog.suffix(1500))"
        // One call counted once however many devices reported it: the books balance and every file agrees.
        try assertOutcomesAgree(run: outcome.runDirectory)
        XCTAssertTrue(Books(counters: c).balanced, all)
        XCTAssertEqual(c["calls.planned"], c["calls.started"], all)
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, all)
        XCTAssertEqual(c["calls.completed"], c["calls.started"], all)
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.elsewhereEndDelay]?.totalCount ?? 0, 0, all)
        XCTAssertNil(c[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c[MetricName.elsewhereWrongReason], all)
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
        XCTAssertNil(c["sip.misdirected.INVITE"], all)
        // Both endings through the proxy's CANCEL, and a device woken after the answer told by a background push.
        XCTAssertGreaterThan(c["sip.forks.elsewhere_200"] ?? 0, 0, all)
        XCTAssertGreaterThan(c["sip.forks.elsewhere_603"] ?? 0, 0, all)
        XCTAssertGreaterThan(c["pushes.received.background"] ?? 0, 0, all)
        XCTAssertEqual(history.report.violations, [], "\(example): \(history.report.violations.prefix(3))")
        XCTAssertTrue(outcome.verdict.passed, "\(outcome.verdict)")
        let calls = MultiDeviceSIPCalls(history.lines)
        XCTAssertGreaterThan(calls.answered, 0, all)
        XCTAssertGreaterThan(calls.declined, 0, all)
        XCTAssertEqual(calls.answered + calls.declined, Int(c["calls.started"] ?? 0), all)
        XCTAssertGreaterThan(calls.endedElsewhere, 0)
        XCTAssertEqual(calls.problems, [], all)
    }
}

/// Each SIP call of a users run read from its history: whose devices rang it (dialog and push lines), which
/// confirmed it, how each other device of the callee user ended. `problems` names every call not answered on
/// exactly one device, or with another device that did not end joinedElsewhere (declinedElsewhere after a
/// decline).
private struct MultiDeviceSIPCalls {
    var answered = 0
    var declined = 0
    var endedElsewhere = 0
    var problems: [String] = []

    init(_ lines: [[String: Any]]) {
        var callerOf: [Int: String] = [:]  // planned call → caller device
        var userOf: [String: String] = [:]
        var callOf: [String: Int] = [:]  // conversation → planned call
        var devices: [String: Set<String>] = [:]  // conversation → devices that rang or dialled
        var confirmed: [String: Set<String>] = [:]
        var ended: [String: [String: String]] = [:]  // conversation → device → reason
        var decliner: [String: String] = [:]
        for line in lines {
            guard let device = line["device"] as? String else { continue }
            if let user = line["user"] as? String { userOf[device] = user }
            let conversation = line["conversation"] as? String
            switch line["type"] as? String {
            case "invoke":
                if line["kind"] as? String == "start", let call = line["call"] as? Int { callerOf[call] = device }
                if line["step"] as? String == "decline", let conversation { decliner[conversation] = device }
            case "dialog":
                guard let conversation else { continue }
                if let call = line["call"] as? Int { callOf[conversation] = call }
                devices[conversation, default: []].insert(device)
                if line["state"] as? String == "confirmed" { confirmed[conversation, default: []].insert(device) }
                if line["state"] as? String == "terminated", let reason = line["reason"] as? String {
                    ended[conversation, default: [:]][device] = reason
                }
            case "push":
                guard let conversation else { continue }
                devices[conversation, default: []].insert(device)
                if line["event"] as? String == "ended", let reason = line["reason"] as? String {
                    ended[conversation, default: [:]][device] = reason == "joinedElsewhere" ? "joined_elsewhere"
                        : reason == "declinedElsewhere" ? "declined_elsewhere" : reason
                }
            default:
                continue
            }
        }
        for (conversation, call) in callOf.sorted(by: { $0.key < $1.key }) {
            guard let caller = callerOf[call], let user = userOf[caller] else {
                problems.append("\(conversation): no caller")
                continue
            }
            let callee = (devices[conversation] ?? []).filter { userOf[$0] != user }
            let answering = (confirmed[conversation] ?? []).intersection(callee)
            let acting: String
            let expected: String
            if let who = decliner[conversation] {
                declined += 1
                acting = who
                expected = "declined_elsewhere"
                if !answering.isEmpty { problems.append("\(conversation): declined by \(who), answered \(answering)") }
            } else {
                answered += 1
                guard answering.count == 1, let who = answering.first else {
                    problems.append("\(conversation): answered on \(answering.sorted()) of \(callee.sorted())")
                    continue
                }
                acting = who
                expected = "joined_elsewhere"
            }
            if callee.count < 2 { problems.append("\(conversation): rang only \(callee.sorted())") }
            for other in callee.sorted() where other != acting {
                let reason = ended[conversation]?[other]
                if reason == expected { endedElsewhere += 1 } else {
                    problems.append("\(conversation): \(other) ended \(reason ?? "never"), not \(expected)")
                }
            }
        }
    }
}
