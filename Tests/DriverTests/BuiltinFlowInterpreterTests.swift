@testable import Driver
import Scenario
import XCTest

/// Every built-in flow, driven through its `FlowInterpreter` against a fake target under a manual clock: the
/// happy path and each way it can fail (an action failing or timing out, the VoIP push missing or reported
/// after the deadline, the remote end never observed).
final class BuiltinFlowInterpreterTests: XCTestCase {
    /// The action steps of a flow in order, each with the outcome expected on the happy path.
    private func actionSteps(_ name: String) -> [String] {
        BuiltinFlows.flow(named: name)!.steps.compactMap { step in
            switch step.kind {
            case .start, .join, .decline, .end, .pause, .resume, .merge, .unmerge, .redial:
                return "\(step.name)=fulfilled"
            default: return nil
            }
        }
    }

    private func assertHappyPath(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let h = FlowHarness(builtin: name)
        h.begin()
        h.run()
        XCTAssertTrue(h.completed, "\(name) did not complete", file: file, line: line)
        XCTAssertEqual(h.outcomes, actionSteps(name), file: file, line: line)
        XCTAssertEqual(h.count("calls.completed"), 1, file: file, line: line)
        XCTAssertEqual(h.count("flow.\(name).completed"), 1, file: file, line: line)
        XCTAssertEqual(h.count("flow.\(name).failed"), 0, file: file, line: line)
        XCTAssertEqual(h.records["call.duration"]?.count, 1, file: file, line: line)
        XCTAssertFalse(h.call.status.failed, file: file, line: line)
        // Every callee rang: one dial-to-ring figure per await_push step.
        let rings = BuiltinFlows.flow(named: name)!.steps.filter {
            if case .awaitPush = $0.kind { return true } else { return false }
        }.count
        XCTAssertEqual(h.records["dial_to_ring"]?.count, rings, file: file, line: line)
        XCTAssertEqual(h.invoked.count, h.finished.count, "every action got exactly one outcome",
                       file: file, line: line)
    }

    func testIncomingOneToOneHappyPath() { assertHappyPath("incoming-1to1") }
    func testOutgoingOneToOneHappyPath() { assertHappyPath("outgoing-1to1") }
    func testDeclinedHappyPath() { assertHappyPath("declined") }
    func testUnansweredHappyPath() { assertHappyPath("unanswered") }
    func testCallerCancelsHappyPath() { assertHappyPath("caller-cancels") }
    func testHoldResumeHappyPath() { assertHappyPath("hold-resume") }
    func testGroupCallHappyPath() { assertHappyPath("group-call") }
    func testGroupMergeHappyPath() { assertHappyPath("group-merge") }
    func testMergeUnmergeHappyPath() { assertHappyPath("merge-unmerge") }
    func testRedialAfterDropHappyPath() { assertHappyPath("redial-after-drop") }

    func testTheHappyPathCoversEveryBuiltinFlow() {
        XCTAssertEqual(Set(BuiltinFlows.names), [
            "incoming-1to1", "outgoing-1to1", "declined", "unanswered", "caller-cancels", "hold-resume",
            "group-call", "group-merge", "merge-unmerge", "redial-after-drop",
        ], "a new built-in flow needs its happy-path test above")
    }

    func testWaitsTakeTheArrivalsPlannedAnswerAfterThenTalk() {
        let h = FlowHarness(builtin: "incoming-1to1")
        h.begin()
        h.run()
        let sentAt = Dictionary(uniqueKeysWithValues: h.sent.map { ($0.request.op.rawValue, $0.at) })
        // answer_after is the arrival's 400 ms, talk its 2 s (wheel ticks of 1 ms may add one).
        XCTAssertEqual(Double(sentAt["join"]! - sentAt["start"]!) / 1e6, 400, accuracy: 1)
        XCTAssertEqual(Double(sentAt["end"]! - sentAt["join"]!) / 1e6, 2000, accuracy: 1)
    }

    // MARK: - Failure branches, in every built-in flow

    func testAFailedStartFailsTheCallWithNothingToCleanUp() {
        for name in BuiltinFlows.names {
            let h = FlowHarness(builtin: name)
            h.answer = { $0.op == .start ? .fail("http_503") : .fulfil }
            h.begin()
            h.run()
            XCTAssertTrue(h.completed, name)
            XCTAssertEqual(h.outcomes.first, "\(h.finished.first!.step)=failed", name)
            XCTAssertEqual(h.count("calls.failed"), 1, name)
            XCTAssertEqual(h.count("flow.\(name).failed_calls"), 1, name)
            XCTAssertEqual(h.call.status.failure, "start failed: failed", name)
            XCTAssertEqual(h.sent.count, 1, "\(name): nothing is left alive, so nothing is ended")
        }
    }

    func testAFailedMemberActionFailsTheFlowAndCleanupEndsWhatIsAlive() {
        for name in BuiltinFlows.names {
            let h = FlowHarness(builtin: name)
            var failedOne = false
            h.answer = { request in
                guard request.op != .start, !failedOne, !request.tolerant else { return .fulfil }
                failedOne = true
                return .fail("http_409")
            }
            h.begin()
            h.run()
            XCTAssertTrue(h.completed, name)
            XCTAssertEqual(h.count("calls.failed"), 1, name)
            XCTAssertEqual(h.count("flow.\(name).failed"), 1, name)
            XCTAssertTrue(h.call.status.failure?.hasSuffix("failed: failed") == true, name)
            let cleanups = h.sent.filter { $0.request.tolerant }
            XCTAssertTrue(cleanups.allSatisfy { $0.request.op == .end && $0.request.reason == "failed" }, name)
            for local in h.call.devices() {
                let alive = h.context.devices[local].manager.conversations.values.filter { $0.state != .left }
                XCTAssertTrue(alive.isEmpty, "\(name): device \(local) still has \(alive.map(\.uuid)) alive")
            }
        }
    }

    func testATimedOutActionCountsAsTimedOutAndFailsTheFlow() {
        let h = FlowHarness(builtin: "incoming-1to1")
        h.answer = { $0.op == .join ? .timeout : .fulfil }
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertTrue(h.outcomes.contains("answer=timed_out"), "\(h.outcomes)")
        XCTAssertEqual(h.call.status.failure, "join failed: timed_out")
        XCTAssertEqual(h.count("calls.failed"), 1)
    }

    func testAMissingVoIPPushMakesEveryBuiltinCallMissedAndEndsItAsUnanswered() {
        for name in BuiltinFlows.names {
            let h = FlowHarness(builtin: name)
            h.voip = .never
            h.begin()
            let started = h.now
            h.run()
            XCTAssertTrue(h.completed, name)
            XCTAssertEqual(h.count("flow.push_not_received"), 1, name)
            XCTAssertEqual(h.count("calls.missed"), 1, name)
            XCTAssertEqual(h.count("calls.failed"), 0, name)
            XCTAssertEqual(h.count("flow.\(name).missed"), 1, name)
            // The wait gave up after the action timeout (5 s), on the manual clock.
            XCTAssertGreaterThanOrEqual(h.now - started, 5_000_000_000, name)
            let cleanup = h.sent.last!.request
            XCTAssertEqual(cleanup.op, .end, name)
            XCTAssertEqual(cleanup.reason, "unanswered", name)
        }
    }

    func testAVoIPPushReportedAfterTheDeadlineTerminatesTheAppAndTheCallIsMissed() {
        for name in BuiltinFlows.names {
            let h = FlowHarness(builtin: name)
            h.voip = .late
            h.begin()
            h.run()
            XCTAssertTrue(h.completed, name)
            XCTAssertEqual(h.count("devices.terminated_for_missed_deadline"), 1, name)
            XCTAssertEqual(h.count("calls.app_terminated"), 1, name)
            XCTAssertEqual(h.count("calls.missed"), 1, name)
            XCTAssertEqual(h.call.status.failure,
                           "the app was terminated: it reported the VoIP push after the deadline", name)
        }
    }

    func testARemoteEndThatNeverArrivesFailsTheFlowAfterTheTimeout() {
        for name in ["incoming-1to1", "outgoing-1to1", "declined", "unanswered", "caller-cancels", "group-call"] {
            let h = FlowHarness(builtin: name)
            h.lostEvents = ["ended"]
            h.begin()
            h.run()
            XCTAssertTrue(h.completed, name)
            XCTAssertEqual(h.count("flow.end_not_observed"), 1, name)
            XCTAssertEqual(h.call.status.failure, "the end of the conversation never reached this device", name)
            XCTAssertEqual(h.count("calls.failed"), 1, name)
        }
    }

    func testACallerWhoNeverSeesTheAnswerGivesUpBeforeActingOnTheConversation() {
        let h = FlowHarness(builtin: "hold-resume")
        h.lostEvents = ["joined"]
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.count("flow.connect_not_observed"), 1)
        XCTAssertFalse(h.sent.contains { $0.request.op == .pause }, "the hold was never sent")
        XCTAssertEqual(h.call.status.failure, "the callee's answer never reached the caller")
    }
}
