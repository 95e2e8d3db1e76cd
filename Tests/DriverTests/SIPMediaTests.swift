@testable import Driver
import MediaIO
import Metrics
import XCTest

/// RTP on SIP calls (`media:`, issue 34) on the embedded loop: the devices' streams on a `MediaWire` under the
/// manual clock, opened at the SDP, started at the answer, updated by hold and resume, closed at the end. Counts
/// are exact: the wire loses nothing the test did not drop, and every send happens at its deadline.
final class SIPMediaTests: XCTestCase {
    /// Two awake devices, one call (`outgoing-1to1`: the caller hangs up after `talk`), with `media` appended.
    private func rig(talk: String = "1s", media: String = "media: {}", flow: String = "{ outgoing-1to1: 100 }",
                     extra: String = "") throws -> SIPRig {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false,
                                   answerAfter: "{ constant: 100ms }", mix: flow)
            .replacingOccurrences(of: "talk: { constant: 200ms }", with: "talk: { constant: \(talk) }")
            + media + "\n" + extra
        let rig = try SIPRig(yaml, history: true)
        rig.network.latencyNanos = 1_000_000
        return rig
    }

    private func histogramCount(_ recorder: Recorder, _ name: String) -> Int64? {
        recorder.histograms[name]?.totalCount
    }

    /// The callee starts as its 200 leaves (t), the caller as the 200 arrives through the proxy (t + 2 ms: 1 ms a
    /// hop); the caller's BYE leaves `talk` (1 s) later and takes as long. So each end's stream runs a few ms over
    /// 1 s: a packet at its start and every 20 ms, 51 each (0 … 1000 ms), and every packet is heard (the callee's
    /// first, sent at t, reaches the caller before its answer and is still counted). The callee's answer → audio is
    /// the caller's first packet's wait: the 200's 2 ms to the caller (the wire itself adds nothing).
    func testACallWithMediaBothWaysSendsAndHearsEveryPacketForItsTalkTime() throws {
        let rig = try rig()
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        XCTAssertEqual(c["media.streams_opened"], 2, "\(c)")
        XCTAssertEqual(c["media.streams_closed"], 2, "\(c)")
        XCTAssertEqual(c["media.packets_sent"], 2 * 51, "\(c)")
        XCTAssertEqual(c["media.packets_received"], 2 * 51, "\(c)")
        XCTAssertNil(c["media.packets_lost"].flatMap { $0 == 0 ? nil : $0 }, "nothing lost: \(c)")
        XCTAssertNil(c["media.one_way"], "audio both ways: \(c)")
        XCTAssertEqual(histogramCount(recorder, MetricName.answerToAudioCaller), 1)
        XCTAssertEqual(histogramCount(recorder, MetricName.answerToAudioCallee), 1)
        XCTAssertEqual(recorder.histograms[MetricName.answerToAudioCallee]?.max, 2_000, "the caller's first packet")
        XCTAssertEqual(histogramCount(recorder, MetricName.mediaJitter), 2)
        XCTAssertEqual(recorder.histograms[MetricName.mediaJitter]?.max, 0, "sent and heard on the dot: no jitter")
        XCTAssertEqual(recorder.histograms[MetricName.mosX1000]?.min, 4_409, "no loss, no delay: R 93.2, MOS 4.409")
        XCTAssertEqual(histogramCount(recorder, MetricName.sendLagMax), 2)
        XCTAssertEqual(rig.mediaWire?.dropped, 0)
        XCTAssertEqual(rig.loop.mediaStreams?.report(1), nil, "every stream closed at the end of its call")
    }

    /// The caller holds for 3 s (three times the threshold): its own end (`sendonly`) expects nothing and the
    /// held callee (`recvonly`) sends nothing, so no one-way audio; the resume's first packet is measured.
    func testHoldSilencesTheHeldSideWithoutOneWayAudioAndResumeToAudioIsMeasured() throws {
        let flows = """
            flows:
              long-hold:
                roles: [caller, callee]
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
                  - { name: ring, role: callee, do: await_push }
                  - { wait: answer_after }
                  - { name: answer, role: callee, do: join }
                  - { wait: talk }
                  - { name: hold, role: caller, do: pause }
                  - { wait: 3s }
                  - { name: unhold, role: caller, do: resume }
                  - { wait: talk }
                  - { name: hangup, role: caller, do: end }
                  - { name: callee-sees-end, role: callee, do: await_end }

            """
        let rig = try rig(flow: "{ long-hold: 100 }", extra: flows)
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        XCTAssertEqual(c["action.resume.fulfilled"], 1, "\(c)")
        XCTAssertNil(c["media.one_way"], "a held side's silence is not one-way audio: \(c)")
        XCTAssertNil(c["media.packets_while_held"], "the held callee sent nothing while held: \(c)")
        XCTAssertEqual(histogramCount(recorder, MetricName.resumeToAudio), 1, "the holder hears the callee again")
        let sent = try XCTUnwrap(c["media.packets_sent"])
        XCTAssertLessThan(sent, 2 * 51 + 2 * 50 * 3, "the held callee was silent for 3 s: \(c)")
        XCTAssertEqual(c["media.packets_received"], sent, "every packet sent was heard: \(c)")
    }

    /// The wire drops everything the callee sends: the caller hears nothing within `one_way_after` of its answer,
    /// one-way audio counted once, with its cause, and named in the notes; the callee hears the caller.
    func testAWireThatDropsOneDirectionIsOneWayAudioCountedAndNamed() throws {
        let rig = try rig(talk: "2s", media: "media: { one_way_after: 500ms }")
        let calleePort = 30_002  // the wire's second endpoint: the caller opened its stream first, at its INVITE
        rig.mediaWire?.fate = { $0.from.port == calleePort ? .drop : .pass }
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "signalling is untouched: \(c)")
        XCTAssertEqual(c["media.one_way"], 1, "\(c)")
        XCTAssertEqual(c["media.one_way.no_audio_after_answer"], 1, "\(c)")
        XCTAssertNil(histogramCount(recorder, MetricName.answerToAudioCaller), "the caller never heard audio")
        XCTAssertEqual(histogramCount(recorder, MetricName.answerToAudioCallee), 1, "the callee heard the caller")
        XCTAssertEqual(c["media.packets_received"], try XCTUnwrap(c["media.packets_sent"]) / 2, "\(c)")
        let notes = rig.worker.books.notes.filter { $0.hasPrefix("media: one-way audio") }
        XCTAssertEqual(notes.count, 1, "\(notes)")
        XCTAssertTrue(notes.first?.contains("the caller heard nothing, no_audio_after_answer") == true, "\(notes)")
    }

    /// A sleeping callee woken by the push: the INVITE it gets after its wake REGISTER is answered with its
    /// stream's port, and the call carries audio both ways like an awake device's.
    func testAWokenCalleeAnswersWithItsStreamAndHearsTheCaller() throws {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: true,
                                   answerAfter: "{ constant: 100ms }", mix: "{ incoming-1to1: 100 }")
            .replacingOccurrences(of: "talk: { constant: 200ms }", with: "talk: { constant: 1s }")
            + "media: {}\n"
        let rig = try SIPRig(yaml)
        rig.network.latencyNanos = 1_000_000
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        XCTAssertGreaterThan(recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0, 0, "woken: \(c)")
        XCTAssertEqual(c["media.streams_opened"], 2, "\(c)")
        XCTAssertNil(c["media.one_way"], "\(c)")
        XCTAssertEqual(histogramCount(recorder, MetricName.answerToAudioCaller), 1, "\(c)")
        XCTAssertEqual(histogramCount(recorder, MetricName.answerToAudioCallee), 1, "\(c)")
        XCTAssertEqual(c["media.packets_received"], c["media.packets_sent"], "\(c)")
    }

    /// `share: 0%`: no call is drawn, no stream opened, no packet on the wire, and signalling as without media.
    func testShareZeroOpensNoStreams() throws {
        let rig = try rig(media: "media: { share: 0% }")
        let c = rig.run().counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        XCTAssertNil(c["media.streams_opened"], "\(c)")
        XCTAssertNil(c["media.packets_sent"], "\(c)")
        XCTAssertEqual(rig.mediaWire?.delivered, 0)
        XCTAssertEqual(rig.mediaWire?.dropped, 0)
    }
}
