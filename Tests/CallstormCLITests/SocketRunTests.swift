@testable import CallstormCLI
import Foundation
import Metrics
import Scenario
import ScenarioLoading
import TestSupport
import XCTest

/// Issue 21, acceptance 1: devices that sleep without a socket until a VoIP push wakes them (`socket: on_push`)
/// complete ≥ 99 % of the calls of every built-in flow against the embedded target, their actions going over the
/// event channel, and the report shows push_to_socket and push_to_state with percentiles and charts.
final class SocketRunTests: XCTestCase {
    private func yaml(_ mode: String, mix: String, rate: Int, seconds: Int) -> String {
        """
        name: sockets-\(mode)
        seed: 21
        devices: 160
        target: { embedded: true }
        push: { listen: "127.0.0.1:0", deadline: 2s }
        device: { socket: \(mode), socket_linger: 200ms }
        load: [ { hold: { rate: \(rate)/s, for: \(seconds)s } } ]
        mix: { \(mix) }
        behavior:
          answer_after: { uniform: [100ms, 300ms] }
          talk: { uniform: [200ms, 600ms] }
          hangup: random
        drain: 20s
        action_timeout: 5s

        """
    }

    /// One run of `mode`, with the counters every test reads; the run directory is removed after `check`.
    private func run(_ mode: String, mix: String = "incoming-1to1: 100", rate: Int = 10, seconds: Int = 1,
                     traceCalls: Int = 0, check: (RunCommand.Outcome, [String: Int64]) throws -> Void) throws {
        let dir = try TemporaryDirectory.make("socket-\(mode)")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(yaml(mode, mix: mix, rate: rate, seconds: seconds), in: dir) {
            $0.traceCalls = traceCalls
        }
        let c = outcome.result.recorder.counters
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c)")
        try check(outcome, c)
    }

    func testOnPushDevicesCompleteEveryBuiltInFlowAndTheReportShowsPushToSocketAndPushToState() throws {
        let mix = BuiltinFlows.names.map { "\($0): 10" }.joined(separator: ", ")
        try run("on_push", mix: mix, rate: 24, seconds: 3) { outcome, c in try checkOnPush(outcome, c) }
    }

    private func checkOnPush(_ outcome: RunCommand.Outcome, _ c: [String: Int64]) throws {
        XCTAssertTrue(outcome.result.drainedCleanly, "\(outcome.result.notes)")
        for flow in BuiltinFlows.names {
            let started = c["flow.\(flow).started"] ?? 0
            XCTAssertGreaterThan(started, 0, "the mix ran no \(flow) call: \(c)")
            let completed = c["flow.\(flow).completed"] ?? 0
            XCTAssertGreaterThanOrEqual(Double(completed), 0.99 * Double(started), "\(flow): \(c)")
        }
        // The actions went over the sockets, and the socket books balance.
        XCTAssertGreaterThan(c["socket.actions.join"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThan(c["socket.actions.merge"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThan(c[MetricName.socketOpened] ?? 0, 0, "\(c)")
        let books = Books(counters: c)
        XCTAssertNotNil(books.sockets)
        XCTAssertTrue(books.balanced, "\(books.problems)")
        XCTAssertNil(c[MetricName.socketLost], "nothing broke the sockets: \(c)")
        XCTAssertEqual(c[MetricName.invariantViolations], 0, "socket events are history too, and consistent: \(c)")
        let histograms = outcome.result.recorder.histograms
        for metric in [MetricName.pushToSocket, MetricName.pushToState, MetricName.socketConnect,
                       MetricName.socketEventDelivery] {
            XCTAssertGreaterThan(histograms[metric]?.totalCount ?? 0, 0, "no \(metric) samples")
        }
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"sockets\">"))
        XCTAssertTrue(html.contains("data-metric=\"push_to_socket\""))
        XCTAssertTrue(html.contains("data-metric=\"push_to_state\""))
        XCTAssertTrue(html.contains("data-chart=\"push-to-socket\""), "the push_to_socket chart")
        XCTAssertTrue(html.contains("data-chart=\"push-to-state\""), "the push_to_state chart")
        XCTAssertFalse(html.contains("no push_to_socket samples"))
        XCTAssertFalse(html.contains("no push_to_state samples"))
        let summary = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.csv"),
                                 encoding: .utf8)
        XCTAssertTrue(summary.contains("\npush_to_socket,"), summary)
        XCTAssertTrue(summary.contains("\npush_to_state,"), summary)
    }

    func testAlwaysDevicesHoldTheirSocketsFromRegistrationToTheStop() throws {
        try run("always") { outcome, c in
            XCTAssertEqual(c[MetricName.socketOpened], 160, "one socket per device, from registration: \(c)")
            XCTAssertEqual(c[MetricName.socketOpenAtStop], 160, "always: kept to the end: \(c)")
            XCTAssertNil(c[MetricName.pushToSocket], "no push opened a socket: \(c)")
            XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.pushToState]?.totalCount ?? 0, 0)
            XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        }
    }

    func testForegroundDevicesConnectWhenTheUserActsAndTheirActionsWaitForTheSocket() throws {
        try run("foreground", mix: "hold-resume: 100", traceCalls: 2) { outcome, c in
            let trace = try String(contentsOf: outcome.runDirectory.appendingPathComponent("trace.jsonl"),
                                   encoding: .utf8)
            XCTAssertTrue(trace.contains("\"method\":\"WS\""), "socket actions are traced: \(trace)")
            XCTAssertTrue(trace.contains("\"push_type\":\"socket\""), "socket messages are traced: \(trace)")
            XCTAssertNil(c[MetricName.pushToSocket], "the push alone opens no socket: \(c)")
            XCTAssertGreaterThan(c["socket.actions.queued"] ?? 0, 0, "an answer waits for the socket it opened: \(c)")
            XCTAssertGreaterThan(c["socket.actions.pause"] ?? 0, 0, "\(c)")
            XCTAssertGreaterThan(c[MetricName.socketClosedDevice] ?? 0, 0, "closed after the linger: \(c)")
            XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        }
    }

    func testWithoutSocketsNothingSocketIsCounted() throws {
        try run("none") { outcome, c in
            XCTAssertTrue(c.keys.filter { $0.hasPrefix("socket.") || $0.hasPrefix("push_to_s") }.isEmpty, "\(c)")
            XCTAssertNil(Books(counters: c).sockets)
            let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"),
                                  encoding: .utf8)
            XCTAssertFalse(html.contains("<section id=\"sockets\">"))
        }
    }

    func testTheShippedWebSocketExampleParsesWithOnPushSocketsAndMixesEveryBuiltInFlow() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let scenario = try ScenarioLoader.load(contentsOf: root.appendingPathComponent("Scenarios/websocket.yaml").path)
            .get()
        XCTAssertEqual(scenario.device.socket, .onPush)
        XCTAssertEqual(Set(scenario.mix.map(\.flow)), Set(BuiltinFlows.names))
    }
}
