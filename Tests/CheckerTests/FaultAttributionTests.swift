import XCTest
@testable import Checker

/// Findings an injected fault could have caused are reported apart; everything else stays the server's.
final class FaultAttributionTests: XCTestCase {
    private func violation(_ rule: Rule, devices: [String], from: UInt64, to: UInt64) -> Violation {
        Violation(rule: rule, conversations: ["c1"], ops: [], devices: devices, message: "m", window: from...to,
                  events: [])
    }

    private func pushFault(_ kind: String, device: String, at: UInt64, call: Int? = nil) -> InjectedFault {
        InjectedFault(kind: kind, window: "w", family: .device, device: device, call: call, fromNanos: at, toNanos: at)
    }

    func testAPushFaultOnTheDivergedDeviceIsAttributedNotBlamed() {
        let diverged = violation(.finalViewsAgree, devices: ["dev-1"], from: 5_000, to: 9_000)
        let (server, attributed) = FaultAttribution.split(
            [diverged], events: [], faults: [pushFault("push.error_503", device: "dev-1", at: 6_000)])
        XCTAssertTrue(server.isEmpty)
        XCTAssertEqual(attributed.map(\.faults), [["push.error_503"]])
        XCTAssertEqual(FaultAttribution.byKind(attributed).first?.kind, "push.error_503")
    }

    func testAPushFaultOnAnotherDeviceLeavesTheFindingToTheServer() {
        let diverged = violation(.finalViewsAgree, devices: ["dev-1"], from: 5_000, to: 9_000)
        let (server, attributed) = FaultAttribution.split(
            [diverged], events: [], faults: [pushFault("push.dropped", device: "dev-2", at: 6_000)])
        XCTAssertEqual(server, [diverged])
        XCTAssertTrue(attributed.isEmpty)
    }

    func testAPushFaultAfterTheFindingBrokeDoesNotExcuseIt() {
        let diverged = violation(.finalViewsAgree, devices: ["dev-1"], from: 5_000, to: 9_000)
        let (server, _) = FaultAttribution.split(
            [diverged], events: [], faults: [pushFault("push.delayed", device: "dev-1", at: 10_000)])
        XCTAssertEqual(server, [diverged])
    }

    func testAPushFaultNeverExcusesWhatTheServerAnswered() {
        // A lost merge update is in the server's answers: no push fault on the way to a device can cause it.
        let lost = violation(.mergeUnion, devices: ["dev-1"], from: 5_000, to: 9_000)
        let (server, attributed) = FaultAttribution.split(
            [lost], events: [], faults: [pushFault("push.dropped", device: "dev-1", at: 6_000)])
        XCTAssertEqual(server, [lost])
        XCTAssertTrue(attributed.isEmpty)
    }

    func testANetworkFaultExcusesAViewButNotAServerAnswer() {
        let network = InjectedFault(kind: "network.reset_peer", window: "net", family: .network,
                                    fromNanos: 4_000, toNanos: 7_000)
        let view = violation(.finalViewsAgree, devices: ["dev-1"], from: 6_000, to: 9_000)
        let lost = violation(.mergeUnion, devices: ["dev-1"], from: 6_000, to: 9_000)
        let (server, attributed) = FaultAttribution.split([view, lost], events: [], faults: [network])
        XCTAssertEqual(server, [lost])
        XCTAssertEqual(attributed.map(\.violation), [view])
    }

    func testATargetKillExcusesAnyRuleAcrossIt() {
        let kill = InjectedFault(kind: "target.killed", window: "crash", family: .target, fromNanos: 4_000,
                                 toNanos: 7_000)
        let lost = violation(.mergeUnion, devices: ["dev-1"], from: 6_000, to: 9_000)
        let later = violation(.mergeUnion, devices: ["dev-2"], from: 8_000, to: 9_000)
        let (server, attributed) = FaultAttribution.split([lost, later], events: [], faults: [kill])
        XCTAssertEqual(server, [later])
        XCTAssertEqual(attributed.first?.faults, ["target.killed"])
    }

    func testAFaultOnAnotherCallOfTheSameDeviceDoesNotCount() {
        // The finding's events name call 7; the device's fault hit its call 3.
        let events = [HistoryEvent(t: 5_000, .invoke(Invoke(op: 1, device: "dev-1", kind: .join, conversation: "c1",
                                                            call: 7)))]
        var diverged = violation(.finalViewsAgree, devices: ["dev-1"], from: 5_000, to: 9_000)
        diverged.events = [0]
        let (server, _) = FaultAttribution.split(
            [diverged], events: events, faults: [pushFault("push.dropped", device: "dev-1", at: 6_000, call: 3)])
        XCTAssertEqual(server, [diverged])
        let (_, attributed) = FaultAttribution.split(
            [diverged], events: events, faults: [pushFault("push.dropped", device: "dev-1", at: 6_000, call: 7)])
        XCTAssertEqual(attributed.count, 1)
    }
}
