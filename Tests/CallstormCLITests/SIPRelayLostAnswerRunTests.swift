@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Scenarios/sip/media.yaml with `target.sip.rtpengine: { variant: lost_answer }`: the Kamailio the run starts hands
/// rtpengine every callee's answer with its address replaced by 192.0.2.1 (`-A WITH_RTPENGINE_LOST_ANSWER`, a relay
/// that trusts a wrong SDP address), so the caller's audio is relayed nowhere while the callee's reaches the
/// caller. No fault is injected: every call's one-way audio is the server's, and the run finds it twice, by
/// callstorm's own ends (the callee heard nothing) and by the relay's counts (it received the caller's packets and
/// the callee did not).
final class SIPRelayLostAnswerRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip/media.yaml")

    func testAnswerLostAtTheRelayIsOneWayAudioOnEveryCallNamedAndBlamedOnTheServer() throws {
        let dir = try TemporaryDirectory.make("sip-relay-lost-answer")
        defer { TemporaryDirectory.remove(dir) }
        let shipped = try String(contentsOf: Self.example, encoding: .utf8)
        let text = shipped
            .replacingOccurrences(of: "rtpengine: true", with: "rtpengine: { variant: lost_answer }")
            .replacingOccurrences(of: "for: 4s", with: "for: 3s")
        XCTAssertNotEqual(text, shipped)
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let notes = outcome.result.notes
        let started = try XCTUnwrap(c["calls.started"], "\(c)")
        let completed = c["calls.completed"] ?? 0
        XCTAssertGreaterThanOrEqual(Double(completed), 0.99 * Double(started), "signalling is intact: \(c) \(notes)")
        // callstorm's own ends: every callee heard nothing after its answer, every caller heard the callee.
        XCTAssertEqual(c["media.one_way"], completed, "\(c) \(notes)")
        XCTAssertEqual(c["media.one_way.no_audio_after_answer"], completed, "\(c)")
        XCTAssertNil(outcome.result.recorder.histograms[MetricName.answerToAudioCallee], "\(c)")
        XCTAssertEqual(outcome.result.recorder.histograms[MetricName.answerToAudioCaller]?.totalCount, completed)
        XCTAssertTrue(notes.contains { $0.contains("media: one-way audio on call") && $0.contains("the callee heard "
            + "nothing") }, "\(notes)")
        // No fault window explains it: nothing attributed, so it stands against the server.
        XCTAssertTrue(c.keys.filter { $0.hasPrefix("calls.attributed") || $0.hasPrefix("faults.") }.isEmpty, "\(c)")
        // The relay's books: every call compared and every one disagreeing, on the caller's direction only.
        let compared = try XCTUnwrap(c["media.relay.calls_compared"], "\(c)")
        XCTAssertGreaterThanOrEqual(compared, completed, "\(c)")
        XCTAssertEqual(c["media.relay.mismatch"], compared, "\(c) \(notes)")
        let csv = try String(contentsOf: outcome.runDirectory.appendingPathComponent("media-relay.csv"),
                             encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences:
            false).map(String.init) }
        XCTAssertEqual(rows.count, Int(2 * compared), csv)
        for row in rows where row[2] == "caller_to_callee" {
            // The relay received the caller's audio and sends it to the address the lost answer gave it.
            XCTAssertEqual(row[8], "no", csv)
            XCTAssertGreaterThan(Int(row[4]) ?? 0, 50, csv)
            XCTAssertTrue(row[5].hasPrefix("192.0.2.1:"), csv)
            XCTAssertEqual(row[6], "0", csv)
        }
        XCTAssertTrue(rows.filter { $0[2] == "callee_to_caller" }.allSatisfy { $0[8] == "yes" }, csv)
        XCTAssertTrue(notes.contains { $0.hasPrefix("media relay: call ") && $0.contains("caller to callee")
            && $0.contains("192.0.2.1") }, "\(notes)")
        // The shipped example's thresholds fail the run on both counts.
        XCTAssertEqual(outcome.exitCode, .thresholdsFailed, "\(outcome.verdict)")
        let reasons = outcome.verdict.reasons.joined(separator: "\n")
        XCTAssertTrue(reasons.contains("media.one_way") && reasons.contains("media.relay.mismatch"), reasons)
    }
}
