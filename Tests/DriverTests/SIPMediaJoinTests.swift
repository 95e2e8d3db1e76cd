@testable import Driver
import MediaIO
import Metrics
import XCTest

/// `device.join_at: media` and `device.audio_session` (docs/MEDIA.md, "When a join is fulfilled") on the embedded
/// loop under the manual clock: 1 ms a hop through the proxy, nothing added by the media wire. The callee's 200
/// leaves at t; the caller has it at t + 2 ms and sends at once, so the caller's first packet reaches the callee
/// at t + 2 ms (`media.answer_to_audio.callee` 2 ms, the server's part); the callee's own first packet goes when
/// its audio session is up (the app's part).
final class SIPMediaJoinTests: XCTestCase {
    private func rig(device: String, media: String = "media: {}", talk: String = "1s",
                     seed: Int = 26) throws -> SIPRig {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false,
                                   answerAfter: "{ constant: 100ms }", mix: "{ outgoing-1to1: 100 }")
            .replacingOccurrences(of: "talk: { constant: 200ms }", with: "talk: { constant: \(talk) }")
            .replacingOccurrences(of: "transport: udp }", with: "transport: udp, \(device) }")
            .replacingOccurrences(of: "seed: 26", with: "seed: \(seed)")
            + media + "\n"
        XCTAssertTrue(yaml.contains(device), yaml)
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        return rig
    }

    private func max(_ recorder: Recorder, _ name: String) -> Int64? { recorder.histograms[name]?.max }

    /// Audio session 50 ms, caller's audio at 2 ms: the join waits for the session, at t + 50 ms; the caller hears
    /// the callee's first packet 48 ms after its own answer (t + 2 ms).
    func testJoinAtMediaWaitsForTheAudioSessionWhenTheCallersAudioCameFirst() throws {
        let rig = try rig(device: "join_at: media, audio_session: { constant: 50ms }")
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        XCTAssertEqual(c["action.join.fulfilled"], 1, "\(c)")
        XCTAssertEqual(max(recorder, MetricName.audioSessionStart), 50_000)
        XCTAssertEqual(max(recorder, MetricName.answerToAudioCallee), 2_000, "the server's part")
        XCTAssertEqual(max(recorder, MetricName.answerToTalking), 50_000, "max(50 ms session, 2 ms audio)")
        XCTAssertEqual(max(recorder, MetricName.answerToAudioCaller), 48_000, "the callee sent at t + 50 ms")
        XCTAssertNil(c["media.one_way"], "\(c)")
    }

    /// Audio session 1 ms, caller's audio at 2 ms: the join waits for the caller's first packet, at t + 2 ms.
    func testJoinAtMediaWaitsForTheCallersFirstPacketWhenTheSessionCameFirst() throws {
        let rig = try rig(device: "join_at: media, audio_session: { constant: 1ms }")
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c["action.join.fulfilled"], 1, "\(c)")
        XCTAssertEqual(max(recorder, MetricName.answerToTalking), 2_000, "max(1 ms session, 2 ms audio)")
        XCTAssertEqual(max(recorder, MetricName.audioSessionStart), 1_000)
        XCTAssertEqual(max(recorder, MetricName.answerToAudioCaller), 19_000,
                       "the callee's first packet (t + 1 ms) came before the caller's answer (t + 2 ms): its second")
    }

    /// No `audio_session`: the callee sends at its 200 and the join comes with the caller's first packet.
    func testJoinAtMediaWithoutAnAudioSessionJoinsAtTheCallersFirstPacket() throws {
        let rig = try rig(device: "join_at: media")
        let recorder = rig.run()
        XCTAssertEqual(recorder.counters["action.join.fulfilled"], 1, "\(recorder.counters)")
        XCTAssertEqual(max(recorder, MetricName.answerToTalking), 2_000)
        XCTAssertNil(recorder.histograms[MetricName.audioSessionStart], "nothing drawn without the option")
    }

    /// The wire drops every packet the caller sends (its stream is the wire's first endpoint: it opened at its
    /// INVITE): the callee hears nothing within `one_way_after`, and its join fails `no_audio` then (counted
    /// `unknown`: its 200 went, so what the server made of the answer is not undone), failing the call.
    func testJoinAtMediaFailsNoAudioWhenTheCallersAudioNeverArrives() throws {
        let rig = try rig(device: "join_at: media, audio_session: { constant: 20ms }",
                          media: "media: { one_way_after: 500ms }", talk: "2s")
        let callerPort = 30_000
        rig.mediaWire?.fate = { $0.from.port == callerPort ? .drop : .pass }
        let recorder = rig.run()
        let c = recorder.counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c["action.join.unknown.no_audio"], 1, all)
        XCTAssertEqual(c["calls.failed"], 1, all)
        XCTAssertEqual(c["media.join_no_audio"], 1, all)
        XCTAssertNil(c["action.join.fulfilled"], all)
        XCTAssertNil(recorder.histograms[MetricName.answerToTalking], "media never flowed both ways")
        XCTAssertNil(recorder.histograms[MetricName.answerToAudioCallee], "the callee never heard the caller")
        XCTAssertEqual(c["media.one_way.no_audio_after_answer"], 1, all)
        // The silence is no fault's (the test's wire is not a scheduled fault): the checker finds it as the
        // server's, and nothing else.
        let check = try rig.check()
        XCTAssertEqual(check.report.violations.map(\.rule), [.joinedMemberSendsMedia], check.describe)
    }

    /// `audio_session` without `join_at: media`: the join is at the 200 as before, the draw and answer → talking
    /// are measured all the same.
    func testAudioSessionAloneDelaysTheCalleesAudioAndKeepsTheJoinAtTheAnswer() throws {
        let rig = try rig(device: "audio_session: { constant: 30ms }")
        let recorder = rig.run()
        XCTAssertEqual(recorder.counters["action.join.fulfilled"], 1)
        XCTAssertEqual(max(recorder, MetricName.answerToTalking), 30_000)
        XCTAssertEqual(max(recorder, MetricName.answerToAudioCaller), 28_000)
    }

    /// Without the new options a run records neither figure.
    func testWithoutTheOptionsNothingNewIsRecorded() throws {
        let recorder = try rig(device: "join_at: answer").run()
        XCTAssertEqual(recorder.counters["action.join.fulfilled"], 1)
        XCTAssertNil(recorder.histograms[MetricName.answerToTalking])
        XCTAssertNil(recorder.histograms[MetricName.audioSessionStart])
        XCTAssertEqual(max(recorder, MetricName.answerToAudioCaller), 18_000,
                       "as without the keys: the callee's second packet (t + 20 ms) is the first after its answer")
    }

    /// The start-up is drawn from the seed: the same seed draws the same, within the distribution's bounds.
    func testTheAudioSessionDrawIsSeeded() throws {
        func draws(seed: Int) throws -> [Int64?] {
            let recorder = try rig(device: "join_at: media, audio_session: { uniform: [20ms, 80ms] }", seed: seed)
                .run()
            return [recorder.histograms[MetricName.audioSessionStart]?.max,
                    recorder.histograms[MetricName.answerToTalking]?.max]
        }
        let first = try draws(seed: 7)
        XCTAssertEqual(try draws(seed: 7), first)
        let drawn = try XCTUnwrap(first[0])
        XCTAssertTrue((20_000...80_000).contains(drawn), "\(drawn)")
        let talking = try XCTUnwrap(first[1])
        XCTAssertEqual(Double(talking), Double(drawn), accuracy: Double(drawn) / 100,
                       "the session came after the caller's audio (2 ms): answer → talking is the draw")
    }
}
