import Determinism
@testable import Driver
import Metrics
import ReferenceTarget
import Scenario
import XCTest

/// Users with several devices (issue 36) on the embedded loop under the manual clock, against the reference target
/// in memory: a call to a user rings every device of the user, one device answers (or declines), the others end
/// `joinedElsewhere` (`declinedElsewhere`), and what the server does wrong is counted.
final class MultiDeviceCalleeTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func scenario(flow: String, devicesPerUser: Int = 3, calls: Int = 4) throws -> Scenario {
        let yaml = """
            name: multi-device-\(flow)
            seed: 5
            devices: 36
            users: { devices: \(devicesPerUser), ringing_grace: 1s }
            mix: { \(flow): 100 }
            load:
              - hold: { rate: 1/s, for: \(calls)s }
            behavior: { answer_after: { constant: 300ms }, talk: { constant: 3s } }
            """
        return try ScenarioLoader.parse(yaml, file: "users.yaml").get()
    }

    func testUsersGroupOneWorkersDevicesWithOneHandleAndTheirOwnTokens() throws {
        let settings = DriverSettings(scenario: try scenario(flow: "incoming-1to1"), targetURL: "http://x", workers: 2)
        let indexes = settings.deviceIndexes(worker: 1)
        let identities = UserBook.identities(indexes, settings: settings)
        XCTAssertEqual(identities.map(\.index), indexes)
        XCTAssertEqual(identities.prefix(3).map(\.user), ["user-1", "user-1", "user-1"])
        XCTAssertEqual(identities[3].user, "user-7", "the next user begins at the worker's fourth device")
        XCTAssertEqual(Set(identities.prefix(3).map(\.handle)).count, 1, "one handle per user")
        XCTAssertEqual(Set(identities.prefix(3).map(\.apnsToken)).count, 3, "each device its own token")
        XCTAssertEqual(identities.prefix(3).map(\.id), ["dev-1", "dev-3", "dev-5"])
        let mixed = try ScenarioLoader.parse("""
            name: mixed
            seed: 9
            devices: 200
            users: { devices: { 1: 60%, 2: 30%, 3: 10% } }
            load: [ { hold: { rate: 1/s, for: 1s } } ]
            """, file: "m.yaml").get()
        let all = UserBook.identities(Array(0..<200), settings: DriverSettings(scenario: mixed, targetURL: "http://x",
                                                                                 workers: 1))
        let sizes = Dictionary(grouping: all, by: { $0.user! }).mapValues(\.count)
        XCTAssertEqual(Set(sizes.values), [1, 2, 3])
        XCTAssertEqual(all.map(\.user), UserBook.identities(Array(0..<200), settings: DriverSettings(
            scenario: mixed, targetURL: "http://x", workers: 1)).map(\.user), "the same seed, the same users")
    }

    func testWithoutUsersEveryDeviceIsItsOwnUserAndNamesNone() throws {
        var plain = try scenario(flow: "incoming-1to1")
        plain.users = nil
        let settings = DriverSettings(scenario: plain, targetURL: "http://x", workers: 1)
        let identities = UserBook.identities([0, 1, 2], settings: settings)
        XCTAssertEqual(identities, [0, 1, 2].map { DeviceIdentity(index: $0, seed: 5, handles: settings.handles) })
        XCTAssertEqual(identities.map(\.user), [nil, nil, nil])
    }

    func testEveryCallIsAnsweredOnOneDeviceAndTheUsersOthersEndJoinedElsewhere() throws {
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "incoming-1to1"))
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters[MetricName.callsCompleted], 4, all)
        XCTAssertEqual(c.counters["conversations.reported"], 4 * 3, "every device of each callee rang: \(all)")
        XCTAssertEqual(c.histograms[MetricName.elsewhereEndDelay]?.totalCount, 4 * 2,
                       "each callee's two other devices ended joinedElsewhere: \(all)")
        XCTAssertNil(c.counters[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c.counters[MetricName.elsewhereWrongReason], all)
        XCTAssertNil(c.counters[MetricName.elsewhereOutgoingRang], all)
        XCTAssertNil(c.counters[MetricName.pushesVoIPWithoutCall], all)
        XCTAssertNil(c.counters["views.mismatched"], all)
    }

    func testADeclineOnOneDeviceEndsTheOthersDeclinedElsewhere() throws {
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "declined", devicesPerUser: 2))
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters["conversations.reported"], 4 * 2, all)
        XCTAssertEqual(c.histograms[MetricName.elsewhereEndDelay]?.totalCount, 4, all)
        XCTAssertNil(c.counters[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c.counters[MetricName.elsewhereWrongReason], all)
    }

    func testOutgoingCallsNeverRingTheCallersOtherDevices() throws {
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "outgoing-1to1", devicesPerUser: 2))
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters[MetricName.callsCompleted], 4, all)
        XCTAssertEqual(c.counters["conversations.reported"], 4 * 2, "the callee's two devices only: \(all)")
        XCTAssertNil(c.counters[MetricName.elsewhereOutgoingRang], all)
    }

    func testWhenTheDeviceChosenNeverRingsARingingDeviceOfTheUserTakesTheCall() throws {
        // Every user's first device (users of three: devices 0, 3, 6, …) never gets a VoIP push.
        let silent = Set(stride(from: 0, to: 36, by: 3).map { DeviceIdentity.token(index: $0, seed: 5) })
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "incoming-1to1", calls: 6),
                                              silentVoIP: silent)
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters[MetricName.callsCompleted], 6, all)
        XCTAssertNil(c.counters[MetricName.callsMissed], all)
        XCTAssertGreaterThan(c.counters[MetricName.elsewhereTakenOver] ?? 0, 0, all)
        XCTAssertEqual(c.counters["conversations.reported"], 6 * 2, "two of each callee's three rang: \(all)")
        XCTAssertEqual(c.histograms[MetricName.elsewhereEndDelay]?.totalCount, 6, "the other one ended: \(all)")
        XCTAssertNil(c.counters[MetricName.elsewhereRingingAfterAnswer], all)
    }

    func testAServerThatForgetsOneDeviceLeavesItRingingAndIsCounted() throws {
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "incoming-1to1"), bugs: [.elsewhereKeepsRinging])
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters[MetricName.elsewhereRingingAfterAnswer], 4, "one device per call rang on: \(all)")
        XCTAssertEqual(c.histograms[MetricName.elsewhereRingingAfterAnswerDuration]?.totalCount, 4, all)
        XCTAssertEqual(c.histograms[MetricName.elsewhereEndDelay]?.totalCount, 4, "the other one ended: \(all)")
    }

    func testAServerThatCancelsWithAVoIPPushIsCaughtByThePushKitRule() throws {
        let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: "incoming-1to1", devicesPerUser: 2),
                                              bugs: [.elsewhereVoIPCancel])
        let c = rig.run(limit: 600 * second)
        let all = "\(c.counters.sorted { $0.key < $1.key })"
        XCTAssertEqual(c.counters[MetricName.pushesVoIPWithoutCall], 4, "one VoIP push without a call each: \(all)")
    }

    /// Every built-in flow with users of two devices: each call completes with every action fulfilled, and no
    /// device rings on after an answer elsewhere.
    func testEveryBuiltInFlowCompletesWhenEveryUserHasTwoDevices() throws {
        for flow in BuiltinFlows.names {
            let rig = try EmbeddedWorkerTests.Rig(try scenario(flow: flow, devicesPerUser: 2, calls: 3))
            let c = rig.run(limit: 600 * second).counters
            let all = "\(flow): \(c.sorted { $0.key < $1.key })"
            XCTAssertEqual(c[MetricName.callsCompleted], 3, all)
            XCTAssertEqual(c.filter { $0.key.hasPrefix(MetricName.errorsPrefix) }, [:], all)
            XCTAssertNil(c[MetricName.elsewhereRingingAfterAnswer], all)
            XCTAssertNil(c[MetricName.elsewhereWrongReason], all)
            XCTAssertNil(c["views.mismatched"], all)
            let books = Books(counters: c)
            XCTAssertTrue(books.balanced, "\(flow): \(books.problems)")
            for action in books.actions { XCTAssertEqual(action.fulfilled, action.started, "\(flow) \(action.kind)") }
        }
    }
}

/// `${user.id}` and `${device.id}` in the target API mapping's templates (`users:`).
final class UserTemplateTests: XCTestCase {
    func testUserIDIsTheDevicesUserAndTheDevicesOwnIDWithoutUsers() throws {
        let yaml = """
            name: templates
            seed: 5
            devices: 6
            users: { devices: 3 }
            load: [ { hold: { rate: 1/s, for: 1s } } ]
            """
        var scenario = try ScenarioLoader.parse(yaml, file: "t.yaml").get()
        let rig = try EmbeddedWorkerTests.Rig(scenario)
        defer { rig.target.close() }
        let vars = rig.worker.sender.deviceVars(2)
        XCTAssertEqual(vars["device.id"], "dev-2")
        XCTAssertEqual(vars["user.id"], "user-0")
        scenario.users = nil
        let plain = try EmbeddedWorkerTests.Rig(scenario)
        defer { plain.target.close() }
        XCTAssertEqual(plain.worker.sender.deviceVars(2)["user.id"], "dev-2")
    }
}

/// Where devices are named by address (SIP), a user's devices share the user's address of record.
final class UserAddressTests: XCTestCase {
    func testAUsersDevicesShareItsAddressOfRecordWhichReadsBackAsItsFirstDevice() {
        let book = HandleBook(seed: 1, mix: HandleMix(), address: HandleAddress(scheme: "sip", domain: "d.example"))
        let devices = [4, 5, 6].map { DeviceIdentity(index: $0, seed: 1, handles: book, userLead: 4) }
        XCTAssertEqual(Set(devices.map(\.handle.value)), ["sip:user-4@d.example"])
        XCTAssertEqual(devices.map(\.user), ["user-4", "user-4", "user-4"])
        XCTAssertEqual(DeviceIdentity.id(forHandleValue: "sip:user-4@d.example"), "dev-4")
        XCTAssertEqual(DeviceIdentity(index: 5, seed: 1, handles: book).handle.value, "sip:dev-5@d.example",
                       "without users, its own")
    }
}
