@testable import Driver
import Scenario
import XCTest

/// Every built-in flow, driven through its `FlowInterpreter` against a fake target under a manual clock: each way
/// it can fail (an action failing or timing out, the VoIP push missing or reported
/// after the deadline, the remote end never observed).
final class BuiltinFlowInterpreterTests: XCTestCase {
    // The happy path of every built-in flow runs on the real worker: EmbeddedWorkerTests.

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

    // A failed start, in every built-in flow: EmbeddedWorkerTests, on the real worker.

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
