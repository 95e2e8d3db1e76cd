@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Scenarios/sip/media.yaml: `media:` through the shipped Kamailio and the rtpengine the run starts
/// (`target.sip.rtpengine`), the callees asleep until a push wakes them (the parked INVITE's SDP rewritten to the
/// relay): each end's RTP goes to the relay's address in the other's SDP on loopback over real UDP
/// (`UDPMediaStreams` on the workers' event threads, ports from `media.ports`). Every answered call hears audio
/// both ways, the figures reach summary.json, and rtpengine's own per-call counts agree with callstorm's.
final class SIPMediaRunTests: XCTestCase {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    func testCallsThroughKamailioCarryAudioBothWaysWithAnswerToAudioInTheSummary() throws {
        let dir = try TemporaryDirectory.make("sip-media")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.examples.appendingPathComponent("media.yaml"), encoding: .utf8)
        XCTAssertTrue(text.contains("kamailio: true") && text.contains("constant: 1500ms"), text)
        XCTAssertTrue(text.contains("rtpengine: true") && text.contains("sleep: true"), text)
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let histograms = outcome.result.recorder.histograms
        let started = try XCTUnwrap(c["calls.started"], "\(c)")
        let completed = c["calls.completed"] ?? 0
        XCTAssertGreaterThan(started, 0, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(completed), 0.99 * Double(started), "\(c) \(outcome.result.notes)")
        XCTAssertEqual(c["media.streams_opened"], 2 * started, "a stream at each end of every call: \(c)")
        XCTAssertEqual(c["media.streams_closed"], 2 * started, "\(c)")
        XCTAssertNil(c["media.open_failed"], "\(c)")
        XCTAssertNil(c["media.one_way"], "audio both ways on every call: \(c) \(outcome.result.notes)")
        XCTAssertEqual(histograms[MetricName.answerToAudioCaller]?.totalCount, completed, "\(c)")
        XCTAssertEqual(histograms[MetricName.answerToAudioCallee]?.totalCount, completed, "\(c)")
        // 1.5 s of talk is 75 packets a direction; the last few a stream sends after its peer closed are not heard.
        let sent = try XCTUnwrap(c["media.packets_sent"])
        XCTAssertGreaterThanOrEqual(sent, 2 * 75 * completed, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(c["media.packets_received"] ?? 0), 0.9 * Double(sent), "\(c)")
        // Through the relay (issue 34, acceptance 1): every call that sent compared, none disagreeing.
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict) \(outcome.result.notes)")
        XCTAssertGreaterThanOrEqual(histograms[MetricName.pushToRegister]?.totalCount ?? 0, completed,
                                    "every callee was woken: \(c)")
        let compared = try XCTUnwrap(c["media.relay.calls_compared"], "\(c)")
        XCTAssertGreaterThanOrEqual(compared, completed, "\(c)")
        XCTAssertLessThanOrEqual(compared, started, "\(c)")
        XCTAssertEqual(c["media.relay.mismatch"] ?? 0, 0, "\(outcome.result.notes)")
        let csv = try String(contentsOf: outcome.runDirectory.appendingPathComponent("media-relay.csv"),
                             encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, Int(2 * compared), csv)
        XCTAssertTrue(rows.allSatisfy { $0.hasSuffix(",yes") }, csv)
        XCTAssertTrue(rows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false)[5]
            .hasPrefix("127.0.0.1:") }, "the relay sends each direction to a device on loopback: \(csv)")
        let json = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.json"),
                              encoding: .utf8)
        for name in [MetricName.answerToAudioCaller, MetricName.answerToAudioCallee, MetricName.mosX1000] {
            XCTAssertTrue(json.contains(name), "summary.json lacks \(name)")
        }
    }
}
