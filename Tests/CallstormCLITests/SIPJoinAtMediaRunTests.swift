@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// Scenarios/sip/join-at-media.yaml through the Kamailio and the rtpengine the run starts: every callee's join
/// waits for media both ways (`device.join_at: media`) after its app's audio session started
/// (`device.audio_session`), and the run splits answer → talking into the app's part and the server's.
final class SIPJoinAtMediaRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/sip/join-at-media.yaml")

    func testEveryJoinIsFulfilledOnceMediaFlowsBothWaysAndAnswerToTalkingIsSplit() throws {
        let dir = try TemporaryDirectory.make("sip-join-at-media")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(try String(contentsOf: Self.example, encoding: .utf8), in: dir)
        let c = outcome.result.recorder.counters
        let h = outcome.result.recorder.histograms
        let started = try XCTUnwrap(c["calls.started"], "\(c)")
        XCTAssertGreaterThan(started, 0)
        XCTAssertEqual(c["action.join.fulfilled"], started, "every join fulfilled on media: \(c)")
        XCTAssertNil(c["media.join_no_audio"], "\(outcome.result.notes)")
        XCTAssertNil(c[MetricName.mediaOneWay], "\(outcome.result.notes)")
        XCTAssertEqual(h[MetricName.audioSessionStart]?.totalCount, started, "one draw per call")
        XCTAssertEqual(h[MetricName.answerToTalking]?.totalCount, started, "one join on media per call")
        XCTAssertEqual(h[MetricName.answerToAudioCallee]?.totalCount, started, "the server's part, per call")
        let sessionMin = try XCTUnwrap(h[MetricName.audioSessionStart]?.min)
        XCTAssertGreaterThanOrEqual(sessionMin, 19_900, "drawn from [20ms, 80ms]")
        XCTAssertLessThanOrEqual(try XCTUnwrap(h[MetricName.audioSessionStart]?.max), 80_500)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(h[MetricName.answerToTalking]?.min), sessionMin,
                                    "no join before its audio session started")
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict.reasons)")
    }
}
