@testable import CallstormCLI
import Checker
import Foundation
import Metrics
import TestSupport
import XCTest

/// Issue 36, acceptance 2: users with several devices against the reference target, over HTTP and over the device
/// WebSocket (Scenarios/users/): every call is answered on exactly one device, the user's others end
/// joinedElsewhere / declinedElsewhere, none rings after the answer; a target that forgets to stop one device is
/// found by `elsewhere-stops-ringing`, and one that cancels with a VoIP push by the PushKit rule
/// (`pushes.voip_without_call`).
final class MultiDeviceRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { TemporaryDirectory.remove(dir) }
        directories = []
    }

    /// The shipped example, its load shortened, with `bug` planted in the embedded target.
    private func run(_ example: String, bug: String? = nil) throws -> (RunCommand.Outcome, CheckReport) {
        let dir = try TemporaryDirectory.make("multi-device")
        directories.append(dir)
        var yaml = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/users/\(example).yaml"),
                              encoding: .utf8)
        yaml = yaml.replacingOccurrences(of: "hold: { rate: 8/s, for: 5s }", with: "hold: { rate: 8/s, for: 3s }")
        if let bug {
            yaml = yaml.replacingOccurrences(of: "target: { embedded: true }",
                                             with: "target: { embedded: true, bugs: [\(bug)] }")
        }
        let outcome = try runScenario(yaml, in: dir)
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        return (outcome, check.report)
    }

    private func assertAnsweredOnOneDeviceEach(_ example: String) throws {
        let (outcome, report) = try run(example)
        let c = outcome.result.recorder.counters
        let h = outcome.result.recorder.histograms
        let all = "\(example): \(c.sorted { $0.key < $1.key })"
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, all)
        XCTAssertEqual(c["calls.completed"], c["calls.started"], all)
        let ended = h[MetricName.elsewhereEndDelay]?.totalCount ?? 0
        XCTAssertGreaterThan(ended, 0, "some callee had several devices: \(all)")
        // Every device that rang besides the one per call that acted ended elsewhere (outgoing calls ring one
        // user too): reported = one per call + the others.
        XCTAssertEqual(c["conversations.reported"], (c["calls.started"] ?? 0) + ended, all)
        // Answered on exactly one device: one join per answered call, none refused.
        XCTAssertEqual(c["action.join.fulfilled"],
                       (c["flow.incoming-1to1.started"] ?? 0) + (c["flow.outgoing-1to1.started"] ?? 0), all)
        XCTAssertEqual(c["action.join.started"], c["action.join.fulfilled"], all)
        XCTAssertNil(c[MetricName.elsewhereRingingAfterAnswer], all)
        XCTAssertNil(c[MetricName.elsewhereWrongReason], all)
        XCTAssertNil(c[MetricName.elsewhereOutgoingRang], all)
        XCTAssertNil(c[MetricName.pushesVoIPWithoutCall], all)
        XCTAssertNil(c["views.mismatched"], "\(example): \(outcome.result.notes)")
        XCTAssertEqual(report.violations, [], "\(example): \(report.violations.prefix(3))")
        XCTAssertTrue(report.rulesChecked.contains(.elsewhereStopsRinging))
    }

    func testOverHTTPEveryCallIsAnsweredOnOneDeviceAndTheOthersEndElsewhere() throws {
        try assertAnsweredOnOneDeviceEach("multi-device-http")
    }

    func testOverTheDeviceWebSocketEveryCallIsAnsweredOnOneDeviceAndTheOthersEndElsewhere() throws {
        try assertAnsweredOnOneDeviceEach("multi-device-ws")
    }

    func testATargetThatForgetsToStopOneDeviceIsFoundByTheElsewhereRule() throws {
        try assertKeepsRingingFound("multi-device-http")
    }

    func testOverTheDeviceWebSocketATargetThatForgetsToStopOneDeviceIsFoundToo() throws {
        try assertKeepsRingingFound("multi-device-ws")
    }

    private func assertKeepsRingingFound(_ example: String) throws {
        let (outcome, report) = try run(example, bug: "elsewhere-keeps-ringing")
        let found = report.violations.filter { $0.rule == .elsewhereStopsRinging }
        XCTAssertGreaterThan(found.count, 0, "\(report.violations.prefix(3))")
        let first = try XCTUnwrap(found.first)
        XCTAssertTrue(first.message.contains(" of user-"), first.message)
        XCTAssertEqual(first.conversations.count, 1)
        XCTAssertEqual(first.devices.count, 2, "the device left ringing and the one that acted")
        XCTAssertEqual(outcome.result.recorder.counters[MetricName.elsewhereRingingAfterAnswer].map(Int.init),
                       Set(found.map { "\($0.devices[0])/\($0.conversations[0])" }).count,
                       "the driver counts each device the checker finds")
    }

    func testATargetThatCancelsWithAVoIPPushIsFoundByThePushKitRule() throws {
        let (outcome, _) = try run("multi-device-http", bug: "elsewhere-voip-cancel")
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c[MetricName.pushesVoIPWithoutCall] ?? 0, 0, "\(c.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(c[MetricName.pushesVoIPWithoutCall("known_conversation")] ?? 0, 0)
    }
}
