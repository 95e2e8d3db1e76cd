import CallModel
@testable import Driver
import Metrics
import Scenario
import TextEscaping
import XCTest

/// Capability changes (docs/LCK.md): a push, a socket event or a view that names the conversation's capabilities
/// is a `Conversation.Update`; the device keeps what it supports, counts each loss and gain, and refuses an
/// action that needs a lost one as `missing_capability:<name>`.
final class CapabilityUpdateTests: XCTestCase {
    private func model() -> DeviceModel {
        var m = DeviceModel(identities: (0..<2).map { DeviceIdentity(index: $0, seed: 1) }, configuration: .init())
        m.registered(0)
        m.registered(1)
        return m
    }

    private let reader: ViewReader = {
        var push = APIMapping.PushFields(conversation: "$.id", event: "$.type", joined: ["accepted"])
        push.capabilities = "$.caps"
        push.capabilityWords = ["pausing": ["hold"], "merging": ["merge"]]
        var view = ViewMapping(id: "$.id", state: nil, members: "$.people", memberID: "$.user", memberStatus: "$.st")
        view.capabilities = "$.can"
        view.capabilityWords = ["unmerging": ["split"]]
        return ViewReader(view: view, push: push)
    }()

    private func joined(_ m: inout DeviceModel) {
        m[0].manager.reportOutgoing(uuid: "c1", members: [], video: false)
        m[0].manager.connected("c1")
    }

    func testAPushInTheServersWordsWithdrawsAndTheActionIsRefused() throws {
        var m = model()
        joined(&m)
        XCTAssertNil(m[0].manager.check(.pause, conversation: "c1"))
        let payload = reader.push(Array("{\"id\":\"c1\",\"type\":\"update\",\"caps\":[\"merge\",\"unmerging\"]}".utf8))
        XCTAssertEqual(payload?.capabilities, ["merging", "unmerging"], "words not mapped pass through")
        _ = m.observeBackground(payload, on: 0, inCall: true)
        XCTAssertEqual(m[0].manager.conversations["c1"]?.capabilities, [.merging, .unmerging])
        XCTAssertEqual(m[0].manager.check(.pause, conversation: "c1")?.reason, "missing_capability:pausing")
        XCTAssertEqual(m[0].manager.events["capabilities.lost.pausing"], 1)
        XCTAssertNil(m[0].manager.events["capabilities.lost.merging"])
    }

    func testAGainTheAppDoesNotSupportIsNotTaken() {
        var m = model()
        joined(&m)
        m[0].manager.updateCapabilities("c1", [.pausing, .merging, .unmerging, .video, .playingTones])
        XCTAssertEqual(m[0].manager.conversations["c1"]?.capabilities, [.pausing, .merging, .unmerging],
                       "video is off and playingTones not supported by this device")
        XCTAssertNil(m[0].manager.events["capabilities.gained.video"])
        m[0].manager.updateCapabilities("c1", [.pausing])
        m[0].manager.updateCapabilities("c1", [.pausing, .merging])
        XCTAssertEqual(m[0].manager.events["capabilities.gained.merging"], 1)
        XCTAssertEqual(m[0].manager.events["capabilities.lost.unmerging"], 1)
    }

    func testAViewThatNamesCapabilitiesUpdatesTheConversation() throws {
        var m = model()
        joined(&m)
        let json = "{\"id\":\"c1\",\"can\":[\"split\"],\"people\":[{\"user\":\"dev-0\",\"st\":\"joined\"}]}"
        let view = try XCTUnwrap(reader.response(Array(json.utf8)))
        XCTAssertEqual(view.capabilities, [.unmerging])
        m[0].manager.apply(view)
        XCTAssertEqual(m[0].manager.conversations["c1"]?.capabilities, [.unmerging])
        let wrongType = "{\"id\":\"c1\",\"can\":\"split\",\"people\":[]}"
        XCTAssertNil(reader.response(Array(wrongType.utf8)), "a list, or no view")
    }

    func testAnEndedConversationKeepsItsCapabilities() {
        var m = model()
        joined(&m)
        m[0].manager.remoteEnded("c1", reason: .remoteEnded)
        m[0].manager.updateCapabilities("c1", [])
        XCTAssertTrue(m[0].manager.events.keys.allSatisfy { !$0.hasPrefix("capabilities.") })
    }
}
