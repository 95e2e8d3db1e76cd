@testable import CallModel
import XCTest

final class ConversationStateTests: XCTestCase {
    func testLifecycleFollowsLiveCommunicationKitOrder() throws {
        var conversation = Conversation(uuid: "c")
        try conversation.move(to: .joining)
        try conversation.move(to: .joined)
        try conversation.move(to: .paused)
        try conversation.move(to: .joined)
        try conversation.move(to: .leaving)
        try conversation.move(to: .left)
        XCTAssertEqual(conversation.state, .left)
    }

    func testIllegalTransitionIsRejectedAndLeavesStateUnchanged() {
        var conversation = Conversation(uuid: "c")
        XCTAssertThrowsError(try conversation.move(to: .paused)) { error in
            XCTAssertEqual(error as? IllegalTransition, IllegalTransition(from: .idle, to: .paused))
        }
        XCTAssertEqual(conversation.state, .idle)
    }

    func testLeftIsTerminal() {
        for next in ConversationState.allCases {
            XCTAssertFalse(ConversationState.left.canMove(to: next), "left → \(next)")
        }
    }

    func testEndKeepsFirstReason() {
        var conversation = Conversation(uuid: "c")
        conversation.end(.unanswered)
        conversation.end(.remoteEnded)
        XCTAssertEqual(conversation.endedReason, .unanswered)
        XCTAssertEqual(conversation.state, .left)
    }
}

final class ActionTests: XCTestCase {
    private func action() -> Action {
        Action(id: 1, kind: .join, conversationUUID: "c", plannedNanos: 0, startedNanos: 10, timeoutNanos: 100)
    }

    func testOutcomeIsSetExactlyOnce() {
        var a = action()
        XCTAssertTrue(a.finish(.fulfilled, at: 50))
        XCTAssertFalse(a.finish(.failed(reason: "late"), at: 60))
        XCTAssertEqual(a.outcome, .fulfilled)
        XCTAssertEqual(a.finishedNanos, 50)
    }

    func testFulfilmentAfterTimeoutCountsAsTimedOut() {
        var a = action()
        a.finish(.fulfilled, at: 101)
        XCTAssertEqual(a.outcome, .timedOut)
    }

    func testTimedOutActionCannotBeFulfilledLater() {
        var a = action()
        a.finish(.timedOut, at: 100)
        XCTAssertFalse(a.finish(.fulfilled, at: 100))
        XCTAssertEqual(a.outcome, .timedOut)
    }

    func testCapabilityRequirements() {
        XCTAssertEqual(ActionKind.pause.requiredCapability, .pausing)
        XCTAssertEqual(ActionKind.merge.requiredCapability, .merging)
        XCTAssertNil(ActionKind.join.requiredCapability)
    }

    func testCapabilityNamesRoundTrip() {
        let caps: Capabilities = [.video, .merging]
        XCTAssertEqual(Capabilities(names: caps.names), caps)
    }
}
