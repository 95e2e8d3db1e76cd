@testable import CallstormCLI
import Driver
import Foundation
import Metrics
import Scenario
import XCTest

/// Flows built in code (independent of the YAML flow language), run against the real embedded target.
final class FlowRunTests: XCTestCase {
    private func step(_ name: String, _ role: String?, _ kind: FlowStep.Kind) -> FlowStep {
        FlowStep(name: name, role: role, kind: kind)
    }

    private func run(_ flow: Flow, calls: Double = 6, devices: Int = 24) throws -> [String: Int64] {
        var scenario = Scenario(name: "flow-test", seed: 11, devices: devices,
                                load: [.hold(rate: calls, nanos: 1_000_000_000)],
                                mix: [MixEntry(flow: flow.name, weight: 1)],
                                behavior: Behavior(answerAfter: .constant(50_000_000), talk: .constant(100_000_000)),
                                drainNanos: 15_000_000_000, actionTimeoutNanos: 3_000_000_000)
        scenario.flows = [flow.name: flow]
        let servers = try EmbeddedServers(gatewayHost: "127.0.0.1", gatewayPort: 0, bundleID: scenario.push.bundleID)
        defer { servers.stop() }
        let url = try servers.startTarget(bundleID: scenario.push.bundleID)
        let driver = try LoadDriver(settings: DriverSettings(scenario: scenario, targetURL: url, workers: 2))
        servers.sink.set(driver.pushSink)
        let result = driver.run()
        XCTAssertTrue(result.drainedCleanly, "\(result.notes)")
        return result.recorder.counters
    }

    private func assertAllFulfilled(_ c: [String: Int64], kinds: [String], file: StaticString = #filePath,
                                    line: UInt = #line) {
        for kind in kinds {
            XCTAssertGreaterThan(c["action.\(kind).started"] ?? 0, 0, "\(kind) never ran", file: file, line: line)
            XCTAssertEqual(c["action.\(kind).started"], c["action.\(kind).fulfilled"], "\(kind): \(c)",
                           file: file, line: line)
        }
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c)", file: file, line: line)
        XCTAssertGreaterThan(c["views.checked"] ?? 0, 0, file: file, line: line)
        XCTAssertNil(c["views.mismatched"], "device views differ from the server's: \(c)", file: file, line: line)
    }

    func testHoldResumeFlowFulfilsEveryActionAndViewsAgree() throws {
        let flow = Flow(name: "hold", roles: ["caller", "callee"], steps: [
            step("dial", "caller", .start(to: ["callee"], conversation: "main", video: false)),
            step("ring", "callee", .awaitPush(conversation: "main")),
            step("think", nil, .waitBehavior("answer_after")),
            step("answer", "callee", .join(conversation: "main")),
            step("hold", "caller", .pause(conversation: "main")),
            step("w", nil, .wait(.constant(50_000_000))),
            step("unhold", "caller", .resume(conversation: "main")),
            step("talk", nil, .waitBehavior("talk")),
            step("hangup", Flow.hangupRole, .end(conversation: "main", reason: nil)),
            step("caller-sees-end", "caller", .awaitEnd(conversation: "main")),
            step("callee-sees-end", "callee", .awaitEnd(conversation: "main")),
        ])
        let c = try run(flow)
        assertAllFulfilled(c, kinds: ["start", "join", "pause", "resume", "end"])
        XCTAssertGreaterThan(c["conversations.reported"] ?? 0, 0)
    }

    /// The seed story: Ryan holds his group with Adam and David, calls Andre, merges, then unmerges Andre.
    func testGroupMergeStoryFulfilsEveryActionAndViewsAgree() throws {
        let flow = Flow(name: "story", roles: ["ryan", "adam", "david", "andre"], steps: [
            step("dial-group", "ryan", .start(to: ["adam", "david"], conversation: "group", video: false)),
            step("adam-rings", "adam", .awaitPush(conversation: "group")),
            step("david-rings", "david", .awaitPush(conversation: "group")),
            step("adam-joins", "adam", .join(conversation: "group")),
            step("david-joins", "david", .join(conversation: "group")),
            step("hold-group", "ryan", .pause(conversation: "group")),
            step("dial-andre", "ryan", .start(to: ["andre"], conversation: "side", video: false)),
            step("andre-rings", "andre", .awaitPush(conversation: "side")),
            step("andre-joins", "andre", .join(conversation: "side")),
            step("merge", "ryan", .merge(conversation: "group", with: "side")),
            step("talk", nil, .waitBehavior("talk")),
            step("unmerge", "ryan", .unmerge(conversation: "group", member: "andre", into: "andre-again")),
            step("w", nil, .wait(.constant(50_000_000))),
            step("end-andre", "ryan", .end(conversation: "andre-again", reason: nil)),
            step("andre-sees-end", "andre", .awaitEnd(conversation: "andre-again")),
            step("ryan-leaves", "ryan", .end(conversation: "group", reason: nil)),
            // Adam and David are still together: the group lives while two members are in it.
            step("adam-leaves", "adam", .end(conversation: "group", reason: nil)),
            step("david-sees-end", "david", .awaitEnd(conversation: "group")),
        ])
        let c = try run(flow, calls: 4, devices: 32)
        assertAllFulfilled(c, kinds: ["start", "join", "pause", "merge", "unmerge", "end"])
    }

    func testPauseWithoutCapabilityFailsOnceAndTheCallIsCleanedUp() throws {
        let flow = Flow(name: "nocap", roles: ["caller", "callee"], steps: [
            step("dial", "caller", .start(to: ["callee"], conversation: "main", video: false)),
            step("ring", "callee", .awaitPush(conversation: "main")),
            step("answer", "callee", .join(conversation: "main")),
            step("hold", "caller", .pause(conversation: "main")),
            step("never", "caller", .end(conversation: "main", reason: nil)),
        ])
        var scenario = Scenario(name: "nocap", seed: 1, devices: 8, load: [.hold(rate: 3, nanos: 1_000_000_000)],
                                mix: [MixEntry(flow: "nocap", weight: 1)], drainNanos: 10_000_000_000,
                                actionTimeoutNanos: 3_000_000_000)
        scenario.flows = ["nocap": flow]
        scenario.device = DeviceProfile(capabilities: ["merging"])
        let servers = try EmbeddedServers(gatewayHost: "127.0.0.1", gatewayPort: 0, bundleID: scenario.push.bundleID)
        defer { servers.stop() }
        let url = try servers.startTarget(bundleID: scenario.push.bundleID)
        let driver = try LoadDriver(settings: DriverSettings(scenario: scenario, targetURL: url, workers: 1))
        servers.sink.set(driver.pushSink)
        let c = driver.run().recorder.counters
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0)
        XCTAssertEqual(c["action.pause.failed.missing_capability:pausing"], started)
        XCTAssertEqual(c["action.pause.failed"], started)
        XCTAssertEqual(c["calls.failed"], started)
        XCTAssertEqual(c["action.end.started"], started, "cleanup ends each conversation once")
        XCTAssertNil(c["views.mismatched"])
    }
}
