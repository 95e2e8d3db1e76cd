import CallModel
@testable import Driver
import PushModel
import Scenario
import XCTest

/// The device model on its own: idle devices in order, pushes a reorder fault holds, deliveries out of order,
/// missed deadlines, and what background pushes do to a device's conversations.
final class DeviceModelTests: XCTestCase {
    private func model(_ n: Int = 3, groups: Int = 2) -> DeviceModel {
        var m = DeviceModel(identities: (0..<n).map { DeviceIdentity(index: $0, seed: 1) },
                            configuration: .init(maximumConversationGroups: groups))
        for local in (0..<n).reversed() { m.registered(local) }
        m.sortIdle()
        return m
    }

    private func push(_ serial: UInt64) -> APNsPush {
        APNsPush(token: "t", apnsID: "push-\(serial)", pushType: .background, topic: "app", priority: 5,
                 expiration: nil, collapseID: nil, payload: [], acceptedNanos: serial)
    }

    private func payload(_ json: String) -> PushPayload? { ViewReader.reference.push(Array(json.utf8)) }

    func testCallsTakeIdleDevicesInIndexOrderAndReleasedOnesGoLast() {
        var m = model()
        XCTAssertEqual([m.takeIdle(), m.takeIdle()], [0, 1])
        m.release(0)
        XCTAssertEqual([m.takeIdle(), m.takeIdle()], [2, 0])
        XCTAssertEqual(m.idleCount, 0)
    }

    func testHeldPushesAreReleasedInTheOrderTheyWereHeldOrOneByOneBySerial() {
        var m = model()
        let first = m.hold(push(1), for: 0)
        _ = m.hold(push(2), for: 0)
        XCTAssertEqual(m.takeHeld(0, serial: first)?.apnsID, "push-1")
        XCTAssertNil(m.takeHeld(0, serial: first), "released once")
        _ = m.hold(push(3), for: 0)
        XCTAssertEqual(m.takeAllHeld(0).map(\.apnsID), ["push-2", "push-3"])
        XCTAssertTrue(m[0].held.isEmpty)
    }

    func testAPushAcceptedBeforeOneAlreadyDeliveredIsOutOfOrder() {
        var m = model()
        XCTAssertTrue(m.delivered(acceptedNanos: 10, to: 0))
        XCTAssertFalse(m.delivered(acceptedNanos: 5, to: 0))
        XCTAssertTrue(m.delivered(acceptedNanos: 10, to: 0))
        XCTAssertTrue(m.delivered(acceptedNanos: 1, to: 1), "each device keeps its own order")
    }

    func testALostVersionKeepsTheNewestPerConversationUntilTheCallReleasesTheDevice() {
        var m = model()
        let local = m.takeIdle()
        m.lost("conv-1", version: 4, on: local)
        m.lost("conv-1", version: 2, on: local)
        m.lost("conv-2", version: 1, on: local)
        XCTAssertEqual(m[local].lostVersions, ["conv-1": 4, "conv-2": 1])
        XCTAssertTrue(m[1].lostVersions.isEmpty, "each device keeps its own")
        m.release(local)
        XCTAssertTrue(m[local].lostVersions.isEmpty)
    }

    /// A call ending on a device that stays in its other call (call waiting) is forgotten as a release forgets
    /// one: its conversation goes to Recents and its lost versions go, the other call's stay.
    func testAHandOverForgetsTheEndedCallAsAReleaseDoesAndKeepsTheOther() throws {
        var m = model()
        let local = m.takeIdle()
        m[local].callID = 1
        m[local].waitingCall = 2
        XCTAssertNil(m.reportIncoming(local, payload: PushPayload(uuid: "first"), uuid: "first", now: 1))
        XCTAssertNil(m.reportIncoming(local, payload: PushPayload(uuid: "waiting"), uuid: "waiting", now: 2))
        m.lost("first", version: 3, on: local)
        m.lost("waiting", version: 1, on: local)
        XCTAssertTrue(m.handOver(local, ending: 1, conversations: ["first"], remote: m[1].identity.handle))
        XCTAssertEqual(m[local].callID, 2)
        XCTAssertNil(m[local].waitingCall)
        XCTAssertEqual(m[local].lostVersions, ["waiting": 1])
        XCTAssertEqual(m[local].recents.map(\.uuid), ["first"])
        XCTAssertEqual(m[local].recents.first?.remote, m[1].identity.handle)
        XCTAssertNil(m[local].reportedAt["first"])
        XCTAssertEqual(Array(m[local].manager.conversations.keys), ["waiting"])
        XCTAssertFalse(m.handOver(local, ending: 2, conversations: ["waiting"]), "in one call only: released")
    }

    /// A waiting call's INVITE after its push reported it reads the refusal the report got: the live count cannot
    /// tell (the refused conversation, ended at once, is not in it).
    func testAWaitingCallsInviteAfterItsPushKeepsTheRefusalThePushGot() {
        for groups in [1, 2] {
            var m = model(groups: groups)
            for k in 0..<groups {
                XCTAssertNil(m.reportIncoming(0, payload: PushPayload(uuid: "c\(k)"), uuid: "c\(k)", now: 1))
            }
            XCTAssertNotNil(m.reportIncoming(0, payload: PushPayload(uuid: "over"), uuid: "over", now: 2))
            let byPush = m.reportWaiting(0, payload: PushPayload(uuid: "over"), uuid: "over", now: 3)
            XCTAssertFalse(byPush.reported, "\(groups)")
            XCTAssertTrue(byPush.refused, "max \(groups): refused at its push")
            let accepted = m.reportWaiting(0, payload: PushPayload(uuid: "c0"), uuid: "c0", now: 3)
            XCTAssertEqual([accepted.reported, accepted.refused], [false, false], "\(groups)")
            let byInvite = m.reportWaiting(0, payload: PushPayload(uuid: "new"), uuid: "new", now: 4)
            XCTAssertEqual([byInvite.reported, byInvite.refused], [true, true], "\(groups): reported by its INVITE")
        }
    }

    func testTheMissThatReachesTheLimitBlocksVoIPPushes() {
        var m = model()
        XCTAssertFalse(m.missedDeadline(0, blockAfter: 2))
        XCTAssertTrue(m.missedDeadline(0, blockAfter: 2))
        XCTAssertFalse(m.missedDeadline(0, blockAfter: 2), "told once")
        XCTAssertEqual(m[0].deadlineMisses, 3)
    }

    func testAReportedVoIPPushRingsWithTheCallersHandleAndRemembersWhen() throws {
        var m = model()
        let caller = handleJSON(m[1].identity.handle)
        let voip = try XCTUnwrap(payload("{\"uuid\":\"c1\",\"handle\":\(caller),\"sentAt\":1234}"))
        XCTAssertNil(m.reportIncoming(0, payload: voip, uuid: "c1", now: 77))
        XCTAssertEqual(m[0].manager.conversations["c1"]?.state, .idle)
        XCTAssertEqual(m[0].manager.conversations["c1"]?.members, [m[1].identity.handle])
        XCTAssertEqual(m[0].reportedAt["c1"], 77)
        XCTAssertEqual(m[0].pushSentAt["c1"], 1234)
    }

    func testBackgroundPushesAreStaleBadOrApplied() throws {
        var m = model()
        XCTAssertEqual(m.observeBackground(payload("{\"event\":\"ended\"}"), on: 0, inCall: true), .badPayload)
        let ended = payload("{\"uuid\":\"c1\",\"event\":\"ended\"}")
        XCTAssertEqual(m.observeBackground(ended, on: 0, inCall: true), .stale, "unknown conversation")
        m[0].manager.reportOutgoing(uuid: "c1", members: [m[1].identity.handle], video: false)
        XCTAssertEqual(m.observeBackground(ended, on: 0, inCall: false), .stale, "in no call")
        let joined = payload("{\"uuid\":\"c1\",\"event\":\"joined\"}")
        XCTAssertEqual(m.observeBackground(joined, on: 0, inCall: true), .applied(outOfOrder: false))
        XCTAssertEqual(m[0].manager.conversations["c1"]?.state, .joined)
        XCTAssertEqual(m.observeBackground(ended, on: 0, inCall: true), .applied(outOfOrder: false))
        XCTAssertEqual(m[0].manager.conversations["c1"]?.state, .left)
    }

    func testTheMergeOfAConversationNotYetKnownMovesTheDeviceIntoTheOtherOne() throws {
        var m = model()
        let me = m[0].identity
        let view = "{\"id\":\"group\",\"version\":3,\"ended\":false,\"members\":[" +
            "{\"device\":\"\(me.id)\",\"state\":\"joined\",\"handle\":\(handleJSON(me.handle))}]}"
        let merged = payload("{\"uuid\":\"side\",\"event\":\"merged\",\"into\":\"group\",\"conversation\":\(view)}")
        XCTAssertEqual(m.observeBackground(merged, on: 0, inCall: true), .mergedBeforeKnown)
        XCTAssertTrue(m[0].manager.mergedAway.contains("side"))
        XCTAssertEqual(m[0].manager.conversations["group"]?.state, .joined)
    }
}

/// A conversation reported from a push that names no capabilities has the device's own, never an empty set.
final class ReportedCapabilitiesTests: XCTestCase {
    private let configuration = ConversationManager.Configuration(
        supportedCapabilities: Capabilities(names: ["pausing", "merging"]))

    private func reported(_ json: String, reader: ViewReader = .reference) -> Capabilities? {
        var m = DeviceModel(identities: [DeviceIdentity(index: 0, seed: 1)], configuration: configuration)
        m.registered(0)
        guard let payload = reader.push(Array(json.utf8)) else { return nil }
        _ = m.reportIncoming(0, payload: payload, uuid: "c1", now: 1)
        return m[0].manager.conversations["c1"]?.capabilities
    }

    func testAPushWithoutCapabilitiesGetsTheDevicesOwn() {
        var push = APIMapping.PushFields(conversation: "$.callId")
        push.view = nil
        XCTAssertEqual(reported(#"{"callId":"c1"}"#, reader: ViewReader(view: nil, push: push)),
                       configuration.supportedCapabilities)
        XCTAssertEqual(reported(#"{"uuid":"c1"}"#), configuration.supportedCapabilities)
    }

    func testAPushMappingPathOverridesThem() {
        var push = APIMapping.PushFields(conversation: "$.callId")
        push.capabilities = "$.can"
        XCTAssertEqual(reported(#"{"callId":"c1","can":["pausing"]}"#, reader: ViewReader(view: nil, push: push)),
                       Capabilities(names: ["pausing"]))
    }
}
