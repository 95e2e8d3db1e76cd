import CallModel
import XCTest

/// The seed session's two member lists: `members` is everyone invited, `activeRemoteMembers` "only those with
/// media actively flowing". A held member is a member, not an active one; a device's own held conversation has
/// no active remote members.
final class ActiveMemberTests: XCTestCase {
    private let me = Handle(kind: .phoneNumber, value: "+1", displayName: "me")
    private let ryan = Handle(kind: .phoneNumber, value: "+2", displayName: "ryan")
    private let david = Handle(kind: .phoneNumber, value: "+3", displayName: "david")

    private func manager() -> ConversationManager {
        ConversationManager(configuration: .init(), localDevice: "me", localMember: me)
    }

    private func view(_ version: Int, me mine: String, ryan r: String, david d: String = "joined") -> ConversationView {
        ConversationView(uuid: "g", version: version, members: [
            .init(device: "me", handle: me, state: mine), .init(device: "ryan", handle: ryan, state: r),
            .init(device: "david", handle: david, state: d),
        ])
    }

    func testHeldMemberIsAMemberButNotActive() {
        XCTAssertTrue(MemberState.joined.isActive)
        XCTAssertFalse(MemberState.held.isActive)
        XCTAssertTrue(MemberState.held.isConnected)
        XCTAssertFalse(MemberState.ringing.isConnected)
        let v = view(1, me: "joined", ryan: "held")
        XCTAssertEqual(v.activeRemoteMembers(excluding: "me"), [david])
        XCTAssertEqual(Set(v.remoteMembers(excluding: "me").map(\.value)), ["+2", "+3"])
        XCTAssertEqual(Set(v.connectedRemoteMembers(excluding: "me").map(\.value)), ["+2", "+3"])
    }

    func testOwnHeldConversationHasNoActiveRemoteMembers() {
        let v = view(1, me: "held", ryan: "joined")
        XCTAssertEqual(v.activeRemoteMembers(excluding: "me"), [])
        XCTAssertEqual(v.remoteMembers(excluding: "me").count, 2)
    }

    func testDeviceViewFollowsTheSameRule() {
        var m = manager()
        m.reportOutgoing(uuid: "g", members: [ryan, david], video: false)
        XCTAssertTrue(m.apply(view(2, me: "joined", ryan: "held")))
        XCTAssertEqual(m.conversations["g"]?.activeRemoteMembers, [david])
        XCTAssertEqual(m.conversations["g"]?.members.count, 2)
        XCTAssertEqual(m.conversations["g"]?.connectedRemoteMembers.count, 2)
        m.fulfilled(.pause, conversation: "g")
        XCTAssertEqual(m.conversations["g"]?.state, .paused)
        XCTAssertEqual(m.conversations["g"]?.activeRemoteMembers, [])
        XCTAssertNil(m.disagreement(with: view(3, me: "held", ryan: "held")))
    }

    /// A server that holds the device's side (an unmerge that holds the group) moves it to paused, and back.
    func testServerHoldingTheDeviceMovesItToPausedAndBack() {
        var m = manager()
        m.reportOutgoing(uuid: "g", members: [ryan, david], video: false)
        m.apply(view(2, me: "joined", ryan: "joined"))
        XCTAssertEqual(m.conversations["g"]?.state, .joined)
        m.apply(view(3, me: "held", ryan: "joined"))
        XCTAssertEqual(m.conversations["g"]?.state, .paused)
        XCTAssertFalse(m.apply(view(2, me: "joined", ryan: "joined")))  // stale: stays held
        XCTAssertEqual(m.conversations["g"]?.state, .paused)
        m.apply(view(4, me: "joined", ryan: "joined"))
        XCTAssertEqual(m.conversations["g"]?.state, .joined)
    }

    /// Pushes reorder: a member's hold in the group a merge moves this device into can arrive before the push of
    /// the merge itself, whose view is older. The device ends up with the newer one.
    func testAViewOfAConversationNotYetAdoptedIsAppliedWhenItIs() {
        var m = manager()
        m.noteUnknown(view(4, me: "joined", ryan: "held"))
        m.noteUnknown(view(2, me: "joined", ryan: "joined"))  // older: ignored
        XCTAssertNil(m.conversations["g"])
        m.adopt(view(3, me: "joined", ryan: "joined"))
        XCTAssertEqual(m.conversations["g"]?.version, 4)
        XCTAssertEqual(m.conversations["g"]?.activeRemoteMembers, [david])
        var other = manager()
        other.noteUnknown(ConversationView(uuid: "g", version: 9, members: [.init(device: "ryan", state: .joined)]))
        other.adopt(view(3, me: "joined", ryan: "joined"))
        XCTAssertEqual(other.conversations["g"]?.version, 3, "a view that does not list the device is not kept")
    }
}
