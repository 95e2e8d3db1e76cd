import CallModel
@testable import Driver
@testable import Scenario
import XCTest

/// Races, device faults and the end-of-call view check, driven through `FlowInterpreter` under a manual clock.
final class FlowInterpreterTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func race(offset: String) -> Flow {
        BuiltinFlows.parse(name: "race", yaml: """
            roles: [caller, callee]
            steps:
              - { name: dial, role: caller, do: start, to: [callee] }
              - { name: ring, role: callee, do: await_push }
              - { name: answer, role: callee, do: join }
              - { wait: 100ms }
              - name: clash
                offset: \(offset)
                together:
                  - { name: hold, role: caller, do: pause }
                  - { name: hang-up, role: callee, do: end }
              - { name: caller-sees-end, role: caller, do: await_end }
            """)
    }

    /// Answers the race's actions only when the test says, so their send instants can be read.
    private func runUntilRaceFired(_ h: FlowHarness) -> [(op: ActionOp, at: UInt64)] {
        h.answer = { _ in .fulfil }
        h.begin()
        for _ in 0..<50 where !h.sent.contains(where: { $0.request.inRace }) {
            if !h.outstanding.isEmpty { h.answerNext() } else { h.fireNextTimer() }
        }
        for _ in 0..<10 where h.sent.filter(\.request.inRace).count < 2 { h.fireNextTimer() }
        return h.sent.filter(\.request.inRace).map { ($0.request.op, $0.at) }
    }

    // MARK: - Races

    func testARaceFiresTheFirstActionAtTheBarrierAndTheOtherOffsetAfterIt() {
        let h = FlowHarness(flow: race(offset: "5ms"))
        let fired = runUntilRaceFired(h)
        XCTAssertEqual(fired.map(\.op), [.pause, .end])
        XCTAssertEqual(fired[1].at - fired[0].at, 5 * ms)
        XCTAssertEqual(h.count("race.race/clash.runs"), 1)
        // Both are recorded as fired in the race, with its offset, for the history.
        let raced = h.invoked.filter { $0.race != nil }
        XCTAssertEqual(raced.map { $0.race!.name }, ["race/clash", "race/clash"])
        XCTAssertEqual(raced.map { $0.race!.offset }, [5_000_000, 5_000_000])
    }

    func testANegativeOffsetFiresTheOthersFirst() {
        let h = FlowHarness(flow: race(offset: "-3ms"))
        let fired = runUntilRaceFired(h)
        XCTAssertEqual(fired.map(\.op), [.end, .pause])
        XCTAssertEqual(fired[1].at - fired[0].at, 3 * ms)
    }

    func testALostRaceIsCountedButTheFlowGoesOnOnceEveryActionFinished() {
        let h = FlowHarness(flow: race(offset: "0ms"))
        h.answer = { $0.inRace && $0.op == .pause ? .fail("http_409") : .fulfil }
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertTrue(h.outcomes.contains("hold=failed"), "\(h.outcomes)")
        XCTAssertTrue(h.outcomes.contains("hang-up=fulfilled"), "\(h.outcomes)")
        XCTAssertFalse(h.call.status.failed, "a lost race does not fail the flow")
        XCTAssertEqual(h.count("calls.completed"), 1)
    }

    func testAReplayOffsetReplacesTheStepsOwn() {
        var config = FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false)
        config.replayOffsetNanos = 7 * Int64(ms)
        let h = FlowHarness(flow: race(offset: "1ms"), config: config)
        let fired = runUntilRaceFired(h)
        XCTAssertEqual(fired[1].at - fired[0].at, 7 * ms)
    }

    func testARaceActionWithoutTheCapabilityFailsAtOnceWithoutARequest() {
        let noPausing = ConversationManager.Configuration(supportedCapabilities: [.merging, .unmerging])
        let h = FlowHarness(flow: race(offset: "0ms"), device: noPausing)
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertTrue(h.outcomes.contains("hold=failed"))
        XCTAssertEqual(h.finished.first { $0.step == "hold" }?.action.outcome,
                       .failed(reason: "missing_capability:pausing"))
        XCTAssertFalse(h.sent.contains { $0.request.op == .pause })
    }

    // MARK: - Device faults and refusals

    func testASlowMediaSetupFulfilsTheJoinLaterAndTheFlowWaitsForIt() {
        let h = FlowHarness(builtin: "incoming-1to1")
        h.begin()
        // Answer until the join is out, then hold its answer back the way the worker does for a join_delay fault.
        for _ in 0..<20 where !h.outstanding.contains(where: { $0.op == .join }) {
            if !h.outstanding.isEmpty { h.answerNext() } else { h.fireNextTimer() }
        }
        let join = h.holdBack()
        let sentAt = h.sent.last!.at
        h.wheel.schedule(.lateAnswer(join, ActionAnswer(outcome: .fulfilled)), at: h.now + 300 * ms)
        // The join stays in flight until the late answer fires.
        XCTAssertEqual(h.call.waiting, .action)
        XCTAssertEqual(h.call.log.actions.last?.isFinished, false)
        XCTAssertTrue(h.fireNextTimer())
        let fulfilled = h.finished.first { $0.step == "answer" }!
        XCTAssertEqual(fulfilled.action.outcome, .fulfilled)
        XCTAssertEqual(fulfilled.action.finishedNanos! - fulfilled.action.startedNanos, h.now - sentAt)
        XCTAssertGreaterThanOrEqual(h.now - sentAt, 300 * ms)
    }

    func testAFailedMediaSetupFailsTheJoinAndTheFlow() {
        let h = FlowHarness(builtin: "incoming-1to1")
        h.answer = { $0.op == .join ? .fail("media_setup_failed") : .fulfil }
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.finished.first { $0.step == "answer" }?.action.outcome, .failed(reason: "media_setup_failed"))
        XCTAssertEqual(h.call.status.failure, "join failed: failed")
    }

    func testARefusedActionFailsAtOnceWithItsReasonAndSendsNothing() {
        let noPausing = ConversationManager.Configuration(supportedCapabilities: [.merging, .unmerging])
        let h = FlowHarness(builtin: "hold-resume", device: noPausing)
        h.begin()
        h.run()
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.finished.first { $0.step == "hold" }?.action.outcome,
                       .failed(reason: "missing_capability:pausing"))
        XCTAssertFalse(h.sent.contains { $0.request.op == .pause })
        XCTAssertEqual(h.count("calls.failed"), 1)
    }

    func testAStaleTimerFromAnEarlierWaitIsIgnored() {
        let h = FlowHarness(builtin: "incoming-1to1")
        h.begin()
        h.answerNext()  // the start; the callee now waits for its push, which is delivered at once
        XCTAssertEqual(h.call.waiting, .timer, "answer_after")
        let effects = h.call.timerFired(.waitTimeout(token: h.call.waitToken - 1), now: h.now, &h.context)
        XCTAssertTrue(effects.isEmpty)
        XCTAssertEqual(h.call.waiting, .timer)
    }

    // MARK: - The view check at the end of a call

    private func verifying() -> FlowConfig {
        FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: true)
    }

    func testAgreeingViewsAreCheckedOnceAndWriteOneFinalLineEach() {
        let h = FlowHarness(builtin: "incoming-1to1", config: verifying())
        h.begin()
        h.run(views: { h.target.view($0, h.context.devices) })
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.count("views.checked"), 2)
        XCTAssertEqual(h.count("views.mismatched"), 0)
        XCTAssertEqual(h.finals.map(\.state), ["left", "left"])
    }

    func testAViewThatStaysDifferentIsCountedAsAMismatchOnTheLastAttempt() {
        let h = FlowHarness(builtin: "incoming-1to1", config: verifying())
        h.begin()
        var fetches = 0
        h.run(views: { uuid in
            fetches += 1
            var view = h.target.view(uuid, h.context.devices)!
            view.ended = false
            view.version = 0  // not behind the device: checked again once, then counted
            view.members = view.members.map { var m = $0; m.state = "joined"; return m }
            return view
        })
        XCTAssertTrue(h.completed)
        XCTAssertEqual(fetches, 2, "checked again after settling, then given up")
        XCTAssertEqual(h.count("views.mismatched"), 2)
        XCTAssertEqual(h.notes.count, 2)
        XCTAssertEqual(h.count("views.checked"), 2, "checked, and found different")
    }

    func testADeviceBehindIsWaitedForUnlessAFaultLostTheVersionItLacks() {
        for lost in [false, true] {
            let h = FlowHarness(builtin: "incoming-1to1", config: verifying())
            h.begin()
            var fetches = 0
            var firstFetch: UInt64 = 0
            h.run(views: { uuid in
                fetches += 1
                if fetches == 1 { firstFetch = h.now }
                var view = h.target.view(uuid, h.context.devices)!
                // A change neither device has seen: still joined on the server, one version on.
                view.ended = false
                view.version += 1
                view.members = view.members.map { var m = $0; m.state = "joined"; return m }
                if lost, fetches == 1 {
                    for role in ["caller", "callee"] {
                        h.context.devices.lost(uuid, version: view.version, on: h.local(role))
                    }
                }
                return view
            })
            XCTAssertTrue(h.completed)
            XCTAssertEqual(h.count("views.mismatched"), 2)
            if lost {
                XCTAssertEqual(fetches, 2, "checked again once after settling: the push it lacks is not coming")
                XCTAssertEqual(h.now - firstFetch, FlowConfig.settleNanos)
            } else {
                XCTAssertEqual(fetches, 5, "waited for the push on its way: 0.5, 1, 2 and 4 s more")
                XCTAssertEqual(h.now - firstFetch, FlowConfig.settleNanos * 15)
            }
        }
    }

    func testAnUnreadableViewIsCountedAsUnverifiable() {
        let h = FlowHarness(builtin: "incoming-1to1", config: verifying())
        h.begin()
        h.run(views: { _ in nil })
        XCTAssertTrue(h.completed)
        XCTAssertEqual(h.count("views.unverifiable"), 1)
    }
}

/// Observation by polling: a server that sends no event pushes after the VoIP push is still followed.
final class PollingObservationTests: XCTestCase {
    private func silentServer(poll: UInt64?) -> FlowHarness {
        let config = FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false,
                                pollNanos: poll)
        let harness = FlowHarness(builtin: "outgoing-1to1", config: config)
        harness.lostEvents = ["joined", "ended", "updated"]
        return harness
    }

    func testWithoutPollingTheCallerNeverSeesTheAnswer() {
        let harness = silentServer(poll: nil)
        harness.begin()
        harness.run()
        XCTAssertEqual(harness.pollCount, 0)
        XCTAssertTrue(harness.completed)
        XCTAssertEqual(harness.count("calls.failed"), 1, "\(harness.counts)")
    }

    func testPollingSeesTheAnswerAndTheRemoteEnd() {
        let harness = silentServer(poll: 250_000_000)
        harness.begin()
        harness.run()
        XCTAssertTrue(harness.completed)
        XCTAssertEqual(harness.count("calls.completed"), 1, "\(harness.counts) \(harness.notes) \(harness.outcomes)")
        XCTAssertGreaterThan(harness.pollCount, 0)
        XCTAssertEqual(harness.count("flow.connect_not_observed"), 0)
    }

    func testPollsAreJitteredButRepeatWithTheSeed() {
        func pollTimes() -> [UInt64] {
            let harness = silentServer(poll: 250_000_000)
            harness.begin()
            harness.run()
            return harness.invoked.map(\.action.startedNanos)
        }
        XCTAssertEqual(pollTimes(), pollTimes())
    }
}

/// Ending what already ended is no error; other refusals of an end stay errors.
final class AlreadyEndedTests: XCTestCase {
    private func hangupAnswered(_ refusal: FakeAnswer) -> FlowHarness {
        let harness = FlowHarness(builtin: "outgoing-1to1")
        harness.answer = { $0.kind == .end ? refusal : .fulfil }
        harness.begin()
        harness.run()
        return harness
    }

    func testAnEndAnsweredWithTheMappedAlreadyEndedStatusIsNoFailure() {
        let harness = hangupAnswered(.refuse(status: 410, alreadyEnded: true, performed: true))
        XCTAssertTrue(harness.completed)
        XCTAssertEqual(harness.count("calls.completed"), 1, "\(harness.counts) \(harness.notes)")
        XCTAssertEqual(harness.count("action.end.already_ended"), 1)
        XCTAssertTrue(harness.outcomes.contains("hangup=failed"), "\(harness.outcomes)")  // the server refused it
        let caller = harness.context.devices[harness.local("caller")].manager
        XCTAssertTrue(caller.conversations.values.allSatisfy { $0.state == .left })
    }

    func testAnotherRefusalOfAnEndStaysAnError() {
        let harness = hangupAnswered(.refuse(status: 403, alreadyEnded: false))
        XCTAssertEqual(harness.count("calls.failed"), 1, "\(harness.counts)")
        XCTAssertEqual(harness.count("action.end.already_ended"), 0)
    }

    func testA409ForAConversationNotSeenEndedStaysAnError() {
        let harness = hangupAnswered(.refuse(status: 409, alreadyEnded: false))
        XCTAssertEqual(harness.count("calls.failed"), 1, "\(harness.counts)")
    }
}

/// A member change the device is not told of: a server that answers a merge without the merged view and sends no
/// event pushes. The merging device splits a member off only once it sees that member, so it polls for it.
final class MemberChangePollingTests: XCTestCase {
    /// `joinsPushed`: answers still reach callers by push (only the merge goes untold).
    private func silentMerge(poll: UInt64?, joinsPushed: Bool = false) -> FlowHarness {
        let config = FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false,
                                pollNanos: poll)
        let harness = FlowHarness(builtin: "merge-unmerge", config: config)
        harness.lostEvents = Set(["ended", "updated", "merged", "split"]).union(joinsPushed ? [] : ["joined"])
        harness.target.mergeAnswerHasView = false
        harness.begin()
        harness.run()
        return harness
    }

    private func sentAt(_ harness: FlowHarness, _ op: ActionOp) -> UInt64? {
        harness.sent.first { $0.request.op == op }?.at
    }

    func testAnUnmergeWaitsForAPollThatShowsTheMergedMember() throws {
        let harness = silentMerge(poll: 250_000_000)
        XCTAssertEqual(harness.count("calls.completed"), 1, "\(harness.counts) \(harness.notes) \(harness.outcomes)")
        XCTAssertEqual(harness.count("flow.member_not_observed"), 0)
        let merged = try XCTUnwrap(sentAt(harness, .merge))
        let unmerged = try XCTUnwrap(sentAt(harness, .unmerge))
        let a = harness.local("a")
        let first = try XCTUnwrap(harness.sent.first { $0.request.op == .merge }?.request.conversation)
        // The flow waits 1 s after the merge, then polls the merged conversation until it shows c.
        let polls = harness.polled.filter { $0.device == a && $0.conversation == first && $0.at > merged }
        XCTAssertFalse(polls.isEmpty, "\(harness.polled)")
        XCTAssertTrue(polls.allSatisfy { $0.at >= merged + 1_000_000_000 && $0.at <= unmerged }, "\(polls)")
        XCTAssertGreaterThan(unmerged, merged + 1_000_000_000, "the unmerge waited for the poll")
    }

    func testWithoutPollingAMemberNeverSeenIsNotSplitOffAndTheCallFails() {
        let harness = silentMerge(poll: nil, joinsPushed: true)
        XCTAssertEqual(harness.pollCount, 0)
        XCTAssertEqual(harness.count("flow.member_not_observed"), 1, "\(harness.counts)")
        XCTAssertEqual(harness.count("calls.failed"), 1, "\(harness.counts)")
        XCTAssertNil(sentAt(harness, .unmerge), "no unmerge of a member the device cannot see")
    }

    func testAMemberTheMergeAnswerShowedNeedsNoPoll() throws {
        let config = FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false,
                                pollNanos: 250_000_000)
        let harness = FlowHarness(builtin: "merge-unmerge", config: config)
        harness.begin()
        harness.run()
        XCTAssertEqual(harness.count("calls.completed"), 1, "\(harness.counts) \(harness.notes)")
        let merged = try XCTUnwrap(sentAt(harness, .merge))
        let unmerged = try XCTUnwrap(sentAt(harness, .unmerge))
        XCTAssertEqual(unmerged, merged + 1_000_000_000, "the unmerge follows the 1 s wait at once")
        XCTAssertTrue(harness.polled.allSatisfy { $0.at <= merged || $0.at > unmerged }, "\(harness.polled)")
    }
}
