@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// The push wake-up path over SIP over WebSocket (RFC 7118) through the shipped Kamailio the run starts
/// (Scenarios/sip/ws.yaml): the run gives Kamailio a ws (or wss) listener, every woken device opens a new
/// connection and an HTTP Upgrade for the `sip` subprotocol before its REGISTER, and the parked INVITE continues to
/// it over that WebSocket. The wake-up path's parts (connect, handshake, REGISTER) are figures of every wake.
final class SIPWakeWebSocketRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/ws.yaml")

    func testSleepingDevicesWakeOverWebSocketThroughTheKamailioTheRunStarts() throws {
        try wakeRun(transport: "ws")
    }

    func testSleepingDevicesWakeOverSecureWebSocketThroughTheKamailioTheRunStarts() throws {
        try wakeRun(transport: "wss")
    }

    private func wakeRun(transport: String) throws {
        let dir = try TemporaryDirectory.make("sip-wake-\(transport)")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "transport: ws }", with: "transport: \(transport) }")
        XCTAssertTrue(text.contains("transport: \(transport) }"), text)
        let outcome = try runScenario(text, in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        let c = outcome.result.recorder.counters
        let h = outcome.result.recorder.histograms
        let log = (try? String(contentsOf: outcome.runDirectory.appendingPathComponent("kamailio.log"),
                               encoding: .utf8)) ?? "no kamailio.log"
        let context = "\(c.filter { $0.key.hasPrefix("calls") || $0.key.hasPrefix("sip.") }) \(log.suffix(2000))"
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0, context)
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(started), context)
        XCTAssertEqual(c.filter { $0.key.hasPrefix(MetricName.sipTransportFailed("")) }, [:], context)
        XCTAssertNil(c["sip.retransmissions_sent.INVITE"], context)
        // Every wake REGISTER answered has its parts: connect, the Upgrade (and TLS under wss), the REGISTER.
        let woken = h[MetricName.pushToRegister]?.totalCount ?? 0
        XCTAssertGreaterThan(woken, 0, context)
        for part in [MetricName.wakeConnect, MetricName.wakeHandshake, MetricName.wakeRegister] {
            XCTAssertEqual(h[part]?.totalCount, woken, "\(part): \(context)")
        }
        XCTAssertGreaterThan(h[MetricName.registerToInvite]?.totalCount ?? 0, 0, context)
        // The parts are in the run's summaries and its report, beside push_to_register.
        let summary = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.csv"),
                                 encoding: .utf8)
        let json = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.json"),
                              encoding: .utf8)
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"),
                              encoding: .utf8)
        for part in [MetricName.wakeConnect, MetricName.wakeHandshake, MetricName.wakeRegister] {
            XCTAssertTrue(summary.contains(part), "summary.csv lacks \(part)")
            XCTAssertTrue(json.contains("\"\(part)\""), "summary.json lacks \(part)")
            XCTAssertTrue(html.contains(part), "report.html lacks \(part)")
        }
        XCTAssertTrue(outcome.verdict.passed, "\(outcome.verdict)")
    }
}
