import Media
import XCTest

final class OneWayAudioDetectorTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testNoAudioWithinTheThresholdAfterTheAnswerIsOneWayUntilAudioComes() {
        var d = OneWayAudioDetector()
        d.answered(at: 1_000 * ms, expecting: true)
        XCTAssertEqual(d.nextDeadline, 2_000 * ms)
        XCTAssertNil(d.advance(to: 1_999 * ms))
        let episode = OneWayAudioDetector.Episode(cause: .noAudioAfterAnswer, since: 1_000 * ms, foundAt: 2_000 * ms)
        XCTAssertEqual(d.advance(to: 2_000 * ms), .oneWayBegan(episode))
        XCTAssertTrue(d.isOneWay)
        var ended = episode
        ended.endedAt = 2_500 * ms
        XCTAssertEqual(d.packet(at: 2_500 * ms), .oneWayEnded(ended))
        XCTAssertEqual(d.answerToAudioNanos, 1_500 * ms, "answer → audio is measured even when it came late")
        XCTAssertEqual(d.episodes, [ended])
    }

    func testAudioThatStopsMidCallIsFoundOneThresholdAfterTheLastPacket() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        XCTAssertEqual(d.packet(at: 80 * ms), .firstAudio(afterAnswerNanos: 80 * ms))
        for t in stride(from: 100, through: 1_000, by: 20) { XCTAssertNil(d.packet(at: UInt64(t) * ms)) }
        XCTAssertNil(d.advance(to: 1_999 * ms))
        XCTAssertEqual(d.advance(to: 2_000 * ms),
                       .oneWayBegan(.init(cause: .stoppedMidCall, since: 1_000 * ms, foundAt: 2_000 * ms)))
        // The call ends while it is silent: the episode ends there.
        XCTAssertEqual(d.stop(at: 3_000 * ms),
                       .oneWayEnded(.init(cause: .stoppedMidCall, since: 1_000 * ms, foundAt: 2_000 * ms,
                                          endedAt: 3_000 * ms)))
        XCTAssertNil(d.nextDeadline)
    }

    func testTheHeldSidesSilenceIsNotOneWayAndResumeToAudioIsMeasured() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        _ = d.packet(at: 40 * ms)
        _ = d.packet(at: 500 * ms)
        // This end goes sendonly (holds): nothing is expected from the far end.
        XCTAssertNil(d.expect(false, at: 500 * ms))
        XCTAssertNil(d.nextDeadline)
        XCTAssertNil(d.advance(to: 10_000 * ms))
        XCTAssertEqual(d.episodes, [])
        // Resume at 10 s: the first packet 120 ms later is resume → audio.
        XCTAssertNil(d.expect(true, at: 10_000 * ms))
        XCTAssertEqual(d.nextDeadline, 11_000 * ms)
        XCTAssertEqual(d.packet(at: 10_120 * ms), .resumedAudio(afterResumeNanos: 120 * ms))
        XCTAssertEqual(d.resumeToAudioNanos, [120 * ms])
        XCTAssertEqual(d.answerToAudioNanos, 40 * ms)
    }

    func testNoAudioAfterAResumeIsOneWay() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: false)
        XCTAssertNil(d.advance(to: 5_000 * ms), "answered on hold: nothing expected")
        _ = d.expect(true, at: 6_000 * ms)
        XCTAssertEqual(d.advance(to: 7_000 * ms),
                       .oneWayBegan(.init(cause: .noAudioAfterResume, since: 6_000 * ms, foundAt: 7_000 * ms)))
        _ = d.packet(at: 7_300 * ms)
        XCTAssertEqual(d.resumeToAudioNanos, [1_300 * ms])
    }

    func testAHoldEndsAnOpenEpisode() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        _ = d.advance(to: 1_000 * ms)
        XCTAssertEqual(d.expect(false, at: 1_400 * ms),
                       .oneWayEnded(.init(cause: .noAudioAfterAnswer, since: 0, foundAt: 1_000 * ms,
                                          endedAt: 1_400 * ms)))
        XCTAssertFalse(d.isOneWay)
    }

    func testMediaThatKeepsFlowingFromAHeldPeerIsCountedApart() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        _ = d.packet(at: 20 * ms)
        _ = d.expect(false, at: 100 * ms)
        // In flight when the hold took effect (within the threshold): not counted.
        XCTAssertNil(d.packet(at: 600 * ms))
        // Past the threshold: found once per hold (the checker's held-member-sends-no-media), counted every time.
        XCTAssertEqual(d.packet(at: 1_200 * ms), .heardWhileNotExpected(sinceHoldNanos: 1_100 * ms))
        XCTAssertNil(d.packet(at: 1_220 * ms))
        XCTAssertEqual(d.packetsWhileNotExpected, 2)
        XCTAssertEqual(d.episodes, [])
        // Resumed and held again: the new hold is found again.
        _ = d.expect(true, at: 1_300 * ms)
        _ = d.packet(at: 1_320 * ms)
        _ = d.expect(false, at: 1_400 * ms)
        XCTAssertEqual(d.packet(at: 2_500 * ms), .heardWhileNotExpected(sinceHoldNanos: 1_100 * ms))
        XCTAssertEqual(d.packetsWhileNotExpected, 3)
    }

    func testAudioThatOvertakesTheResumesAnswerIsNotAHeldMembersAndResumeIsMeasuredFromTheAnswer() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        _ = d.packet(at: 20 * ms)
        _ = d.expect(false, at: 100 * ms)
        // The resume's re-INVITE went out long after the hold; the answerer sends with its 2xx, and its audio beats
        // the 2xx through a slow proxy.
        d.offered(receiving: true)
        XCTAssertNil(d.packet(at: 3_000 * ms))
        XCTAssertNil(d.packet(at: 3_020 * ms))
        XCTAssertEqual(d.packetsWhileNotExpected, 0)
        // The 2xx: resume → audio from the answer.
        _ = d.expect(true, at: 3_030 * ms)
        XCTAssertEqual(d.packet(at: 3_040 * ms), .resumedAudio(afterResumeNanos: 10 * ms))
        // The next hold is judged again: the offer's leeway ended with its answer.
        _ = d.expect(false, at: 3_100 * ms)
        XCTAssertEqual(d.packet(at: 4_200 * ms), .heardWhileNotExpected(sinceHoldNanos: 1_100 * ms))
    }

    func testAHoldOfferGivesNoLeewayToAHeldMembersAudio() {
        var d = OneWayAudioDetector()
        d.answered(at: 0, expecting: true)
        _ = d.expect(false, at: 100 * ms)
        d.offered(receiving: false)
        XCTAssertEqual(d.packet(at: 1_200 * ms), .heardWhileNotExpected(sinceHoldNanos: 1_100 * ms))
    }

    func testAShorterThresholdFromTheScenario() {
        var d = OneWayAudioDetector(thresholdNanos: 300 * ms)
        d.answered(at: 0, expecting: true)
        XCTAssertNotNil(d.advance(to: 300 * ms))
    }
}
