import CallModel
import XCTest

final class ConversationManagerTests: XCTestCase {
    private let me = Handle(kind: .phoneNumber, value: "+1", displayName: "me")
    private let other = Handle(kind: .phoneNumber, value: "+2", displayName: "other")

    private func manager(_ caps: Capabilities = [.pausing, .merging, .unmerging], groups: Int = 2,
                         perGroup: Int = 2) -> ConversationManager {
        ConversationManager(configuration: .init(supportedCapabilities: caps, maximumConversationGroups: groups,
                                                 maximumConversationsPerConversationGroup: perGroup),
                            localDevice: "me", localMember: me)
    }

    private func joined(_ m: inout ConversationManager, _ uuid: String) {
        XCTAssertNil(m.reportIncoming(uuid: uuid, caller: other, capabilities: [.pausing, .merging, .unmerging]))
        m.begin(.join, conversation: uuid)
        m.fulfilled(.join, conversation: uuid)
        XCTAssertEqual(m.conversations[uuid]?.state, .joined)
    }

    func testPauseWithoutPausingCapabilityFailsAtOnce() {
        var m = manager([.merging])
        joined(&m, "a")
        XCTAssertEqual(m.check(.pause, conversation: "a")?.reason, "missing_capability:pausing")
        XCTAssertEqual(m.check(.merge, conversation: "a", with: "a")?.reason, "merge_with_itself")
    }

    func testMergeWithoutMergingCapabilityFails() {
        var m = manager([.pausing])
        joined(&m, "a")
        joined(&m, "b")
        XCTAssertEqual(m.check(.merge, conversation: "a", with: "b")?.reason, "missing_capability:merging")
    }

    func testStartBeyondMaximumConversationGroupsFails() {
        var m = manager(groups: 1)
        joined(&m, "a")
        XCTAssertEqual(m.check(.start, conversation: nil)?.reason, "limit:maximum_conversation_groups")
    }

    func testIncomingBeyondLimitIsReportedThenFailed() {
        var m = manager(groups: 1)
        joined(&m, "a")
        XCTAssertEqual(m.reportIncoming(uuid: "b", caller: other, capabilities: [])?.reason,
                       "limit:maximum_conversation_groups")
        XCTAssertEqual(m.conversations["b"]?.state, .left)
        XCTAssertEqual(m.conversations["b"]?.endedReason, .failed)
    }

    func testMergeBeyondConversationsPerGroupFails() {
        var m = manager(groups: 3, perGroup: 2)
        joined(&m, "a")
        joined(&m, "b")
        joined(&m, "c")
        XCTAssertNil(m.check(.merge, conversation: "a", with: "b"))
        m.fulfilled(.merge, conversation: "a", other: "b")
        XCTAssertEqual(m.groupSizes["a"], 2)
        XCTAssertEqual(m.check(.merge, conversation: "a", with: "c")?.reason, "limit:maximum_conversations_per_group")
    }

    func testMergeWithEndedConversationFails() {
        var m = manager()
        joined(&m, "a")
        joined(&m, "b")
        m.remoteEnded("b", reason: .remoteEnded)
        XCTAssertEqual(m.check(.merge, conversation: "a", with: "b")?.reason, "conversation_ended")
        XCTAssertEqual(m.check(.pause, conversation: "b")?.reason, "conversation_ended")
    }

    func testActionsNeedTheRightState() {
        var m = manager()
        XCTAssertNil(m.reportIncoming(uuid: "a", caller: other, capabilities: [.pausing]))
        XCTAssertEqual(m.check(.pause, conversation: "a")?.reason, "illegal_state:idle")
        XCTAssertEqual(m.check(.resume, conversation: "a")?.reason, "illegal_state:idle")
        XCTAssertNil(m.check(.join, conversation: "a"))
        XCTAssertEqual(m.check(.join, conversation: "zzz")?.reason, "unknown_conversation")
    }

    func testServerViewUpdatesMembersAndIgnoresStaleVersions() {
        var m = manager()
        m.reportOutgoing(uuid: "a", members: [other], video: false)
        let joinedView = ConversationView(uuid: "a", version: 2, ended: false, members: [
            .init(device: "me", handle: me, state: "joined"), .init(device: "o", handle: other, state: "joined"),
        ])
        XCTAssertTrue(m.apply(joinedView))
        XCTAssertEqual(m.conversations["a"]?.state, .joined)  // connected
        XCTAssertEqual(m.conversations["a"]?.activeRemoteMembers, [other])
        let stale = ConversationView(uuid: "a", version: 1, ended: false, members: [])
        XCTAssertFalse(m.apply(stale))
        XCTAssertNil(m.disagreement(with: joinedView))
        let ended = ConversationView(uuid: "a", version: 3, ended: true, members: [])
        XCTAssertNotNil(m.disagreement(with: ended))
        m.apply(ended)
        XCTAssertNil(m.disagreement(with: ended))
        XCTAssertEqual(m.events["startedConnecting"], 1)
        XCTAssertEqual(m.events["connected"], 1)
        XCTAssertEqual(m.events["ended.remoteEnded"], 1)
        XCTAssertEqual(m.events["updated"], 2)
    }

    /// Actions change a conversation where it lies (`update`): each state reached is counted once, a merge ends
    /// the merged-away one (joinedElsewhere) and resumes a paused group, an end already counted is not counted
    /// again, and an unknown conversation changes nothing.
    func testActionsCountEachStateReachedOnce() {
        var m = manager()
        joined(&m, "a")
        joined(&m, "b")
        m.begin(.pause, conversation: "a")
        m.fulfilled(.pause, conversation: "a")
        XCTAssertEqual(m.conversations["a"]?.state, .paused)
        m.fulfilled(.merge, conversation: "a", other: "b")
        XCTAssertEqual(m.conversations["a"]?.state, .joined)
        XCTAssertEqual(m.conversations["b"]?.state, .left)
        XCTAssertEqual(m.conversations["b"]?.endedReason, .joinedElsewhere)
        XCTAssertEqual(m.groupSizes["a"], 2)
        m.begin(.end, conversation: "a")
        XCTAssertEqual(m.conversations["a"]?.state, .leaving)
        m.failed(.end, conversation: "a")
        m.remoteEnded("a", reason: .remoteEnded)
        m.fulfilled(.end, conversation: "a")
        m.connected("a")
        XCTAssertEqual(m.conversations["a"]?.endedReason, .failed)
        m.fulfilled(.join, conversation: "missing")
        m.failed(.end, conversation: "missing")
        XCTAssertNil(m.conversations["missing"])
        XCTAssertEqual(m.events, ["connected": 2, "ended.joinedElsewhere": 1, "ended.failed": 1])
    }

    func testSecondFulfilAfterFailHasNoEffect() {
        var a = Action(id: 1, kind: .merge, conversationUUID: "a", plannedNanos: 0, startedNanos: 0, timeoutNanos: 10)
        XCTAssertTrue(a.finish(.failed(reason: "limit"), at: 5))
        XCTAssertFalse(a.finish(.fulfilled, at: 6))
        XCTAssertEqual(a.outcome, .failed(reason: "limit"))
    }
}
