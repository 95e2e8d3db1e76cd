import XCTest
@testable import Metrics
import Thresholds

/// The media thresholds (issue 34): `media.answer_to_audio.p99` on both ends' histogram, `media.one_way_rate` as
/// one-way calls over calls carrying media, and `media.mos.p5` judged in MOS though recorded × 1000.
final class MediaThresholdTests: XCTestCase {
    private func recorder() -> Recorder {
        var recorder = Recorder(runStartNanos: 0)
        // 100 streams: MOS 4.400 for 95 of them, 2.000 for 5 (the low tail p5 sees).
        for i in 0..<100 { recorder.record(.mediaMOS, micros: i < 5 ? 2_000 : 4_400, atNanos: 0) }
        for ms in 1...100 { recorder.record(.answerToAudio, micros: Int64(ms * 1_000), atNanos: 0) }
        recorder.count(.mediaCalls, by: 40, atNanos: 0)
        recorder.count(.mediaOneWayCalls, by: 2, atNanos: 0)
        return recorder
    }

    private func evaluate(_ key: String, _ expression: String) throws -> ThresholdResult {
        let r = recorder()
        return try Threshold.parse(key: key, expression: expression).evaluate(histograms: r.histograms,
                                                                              counters: r.counters)
    }

    func testMOSThresholdTakesAPlainNumberAndReadsTheScaledHistogram() throws {
        let threshold = try Threshold.parse(key: "media.mos.p5", expression: "> 3.5")
        XCTAssertEqual(threshold.subject, .latency(metric: MetricName.mos, statistic: .percentile(5)))
        XCTAssertEqual(threshold.limit, 3_500)
        let p5 = try evaluate("media.mos.p5", "> 3.5")
        XCTAssertFalse(p5.passed, "p5 lands on the 5 streams at MOS 2")
        XCTAssertEqual(p5.measuredText, "2.000")
        let p10 = try evaluate("media.mos.p10", "> 3.5")
        XCTAssertTrue(p10.passed)
        XCTAssertEqual(p10.measuredText, "4.400")
        XCTAssertThrowsError(try Threshold.parse(key: "media.mos.p5", expression: "> 3.5s"))
        XCTAssertEqual(try evaluate("media.mos.count", "== 100").passed, true)
    }

    func testOneWayRateIsOneWayCallsOverCallsCarryingMedia() throws {
        XCTAssertEqual(RunRatios(counters: recorder().counters).mediaOneWayRate, 0.05)
        let rate = try evaluate("media.one_way_rate", "< 1%")
        XCTAssertEqual(rate.threshold.subject, .ratio(.mediaOneWayRate))
        XCTAssertFalse(rate.passed)
        XCTAssertEqual(rate.measuredText, "5%")
        XCTAssertNil(RunRatios(counters: [:]).mediaOneWayRate, "no call carried media: no data, the threshold fails")
    }

    func testAnswerToAudioP99JudgesBothEndsTogether() throws {
        let p99 = try evaluate("media.answer_to_audio.p99", "< 50ms")
        XCTAssertFalse(p99.passed)
        XCTAssertEqual(p99.measuredText, "99.007 ms")
        XCTAssertTrue(try evaluate("media.answer_to_audio.p99", "< 100ms").passed)
    }

    func testOneWayNoteReadsBackWhatItWrites() {
        let server = MediaOneWayNote(call: 12, callID: "a1b2@127.0.0.1", end: "callee", cause: "no_audio_after_answer")
        XCTAssertEqual(server.text, "media: one-way audio on call 12 (a1b2@127.0.0.1): the callee heard nothing, "
            + "no_audio_after_answer")
        XCTAssertEqual(MediaOneWayNote(parsing: server.text), server)
        let fault = MediaOneWayNote(call: 3, callID: "x", end: "caller", cause: "stopped_mid_call",
                                    fault: "media.one_way_dropped", window: "half-open")
        XCTAssertEqual(MediaOneWayNote(parsing: fault.text), fault)
        XCTAssertNil(MediaOneWayNote(parsing: "media: this loop has no media streams; calls carry none"))
    }
}
