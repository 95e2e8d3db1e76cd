import Checker
@testable import Driver
import Faults
import Metrics
import XCTest

/// RTP faults (`sip: { media_one_way, media_loss, media_delay }`, issue 34) on the embedded loop under the manual
/// clock: applied to the packets each stream reads, logged once per stream direction in faults.csv, and a one-way
/// episode they explain put on the fault (`media.one_way_attributed`); one that no fault explains stays the
/// server's (`media.one_way_without_fault`).
final class SIPMediaFaultTests: XCTestCase {
    /// One call of 2 s talk with media (threshold 500 ms), `faults` appended.
    private func rig(_ faults: String = "", media: String = "media: { one_way_after: 500ms }",
                     history: Bool = false) throws -> SIPRig {
        let yaml = SIPRig.scenario(devices: 2, rate: "1/s", seconds: 1, sleep: false,
                                   answerAfter: "{ constant: 100ms }", mix: "{ outgoing-1to1: 100 }")
            .replacingOccurrences(of: "talk: { constant: 200ms }", with: "talk: { constant: 2s }")
            + media + "\n" + faults
        let rig = try SIPRig(yaml, history: history)
        rig.network.latencyNanos = 1_000_000
        return rig
    }

    private func notes(_ rig: SIPRig) -> [MediaOneWayNote] {
        rig.worker.books.notes.compactMap(MediaOneWayNote.init(parsing:))
    }

    /// The window silences the callee's audio toward the caller for the whole call: the caller hears nothing, the
    /// episode is put on the window (named in the note with the fault and window), nothing is blamed on the
    /// server, and faults.csv has one row for the caller's stream, against the call.
    func testAOneWayWindowIsOneWayAudioAttributedToItNotTheServer() throws {
        let rig = try rig("""
            faults:
              - { name: half-open, at: 0s, for: 10s, sip: { media_one_way: callee_to_caller } }

            """)
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "signalling untouched: \(c)")
        XCTAssertEqual(c[MetricName.mediaOneWay], 1, "\(c)")
        XCTAssertEqual(c[MetricName.mediaOneWayAttributed], 1, "\(c)")
        XCTAssertNil(c[MetricName.mediaOneWayWithoutFault], "\(c)")
        XCTAssertEqual(c[MetricName.fault(MediaOneWayFault.dropped)], 1, "one row per stream direction: \(c)")
        let dropped = try XCTUnwrap(c[MetricName.fault(MediaOneWayFault.dropped + ".packets")])
        XCTAssertEqual(c["media.packets_received"], try XCTUnwrap(c["media.packets_sent"]) - dropped,
                       "every packet toward the caller dropped, every one toward the callee heard: \(c)")
        XCTAssertNil(recorder.histograms[MetricName.answerToAudioCaller], "the caller heard nothing")
        XCTAssertEqual(recorder.histograms[MetricName.answerToAudioCallee]?.totalCount, 1)
        let named = notes(rig)
        XCTAssertEqual(named.map(\.end), ["caller"], "\(named)")
        XCTAssertEqual(named.first?.fault, MediaOneWayFault.dropped)
        XCTAssertEqual(named.first?.window, "half-open")
        let rows = rig.faultLog.all.filter { $0.kind == MediaOneWayFault.dropped }
        XCTAssertEqual(rows.count, 1, "\(rows)")
        XCTAssertEqual(rows.first?.call, 0, "against the call")
    }

    /// The same call with no window, the wire itself dropping the callee's audio (as a relay that never opened
    /// it would): the same one-way audio, the server's.
    func testOneWayAudioNoFaultExplainsIsTheServers() throws {
        let rig = try rig()
        rig.mediaWire?.fate = { $0.from.port == 30_002 ? .drop : .pass }
        let c = rig.run().counters
        XCTAssertEqual(c[MetricName.mediaOneWay], 1, "\(c)")
        XCTAssertEqual(c[MetricName.mediaOneWayWithoutFault], 1, "\(c)")
        XCTAssertNil(c[MetricName.mediaOneWayAttributed], "\(c)")
        XCTAssertNil(notes(rig).first?.fault)
    }

    /// The history carries the episode as a `media` line, and the checker finds it against the dialogs: the
    /// caller's call is connected, its peer joined, and no audio came (`joined-member-sends-media`). A call with
    /// audio both ways has neither line nor finding.
    func testTheCheckerFindsAJoinedMemberFromWhomNoAudioArrives() throws {
        let silent = try rig(history: true)
        silent.mediaWire?.fate = { $0.from.port == 30_002 ? .drop : .pass }
        _ = silent.run()
        let check = try silent.check()
        XCTAssertEqual(check.lines.filter { $0.contains("\"type\":\"media\"") }.count, 1, "\(check.lines)")
        XCTAssertEqual(check.report.violations.map(\.rule), [.joinedMemberSendsMedia], check.describe)
        XCTAssertEqual(check.report.violations.first?.devices.count, 2)

        let clean = try rig(history: true)
        _ = clean.run()
        let fine = try clean.check()
        XCTAssertFalse(fine.lines.contains { $0.contains("\"type\":\"media\"") })
        XCTAssertEqual(fine.report.violations, [], fine.describe)
    }

    /// A fault on the other direction explains nothing: the wire drops the callee's audio (the server's doing)
    /// while a window loses the caller's packets; the caller's silence is still the server's.
    func testAFaultOnTheOtherDirectionDoesNotExplainTheSilence() throws {
        let rig = try rig("""
            faults:
              - { name: lossy, at: 0s, for: 10s, sip: { media_loss: 10%, media_direction: caller_to_callee } }

            """)
        rig.mediaWire?.fate = { $0.from.port == 30_002 ? .drop : .pass }
        let c = rig.run().counters
        XCTAssertGreaterThan(c[MetricName.fault(MediaLossFault.lost + ".packets")] ?? 0, 0, "\(c)")
        XCTAssertEqual(c[MetricName.mediaOneWayWithoutFault], 1, "\(c)")
        XCTAssertNil(c[MetricName.mediaOneWayAttributed], "\(c)")
        XCTAssertEqual(notes(rig).first?.end, "caller")
        XCTAssertNil(notes(rig).first?.fault)
    }

    /// A window that closes 700 ms into the call (its streams start about 1.1 s into the load): the callee hears
    /// nothing past the threshold (the fault's episode), then the caller's audio arrives as the window closes and
    /// ends it: every packet after the window is heard.
    func testAWindowClosingMidCallEndsItsEpisodeAndTheAudioComesBack() throws {
        let rig = try rig("""
            faults:
              - { name: gap, at: 800ms, for: 1s, sip: { media_one_way: caller_to_callee } }

            """)
        let recorder = rig.run()
        let c = recorder.counters
        XCTAssertEqual(c["media.one_way.no_audio_after_answer"], 1, "\(c)")
        XCTAssertEqual(c[MetricName.mediaOneWayAttributed], 1, "\(c)")
        XCTAssertNil(c[MetricName.mediaOneWayWithoutFault], "\(c)")
        XCTAssertEqual(notes(rig).first?.end, "callee")
        XCTAssertEqual(notes(rig).first?.window, "gap")
        let dropped = try XCTUnwrap(c[MetricName.fault(MediaOneWayFault.dropped + ".packets")])
        XCTAssertTrue((34...36).contains(dropped), "700 ms of the caller's packets: \(dropped)")
        XCTAssertEqual(c["media.packets_received"], try XCTUnwrap(c["media.packets_sent"]) - dropped, "\(c)")
        XCTAssertNil(recorder.histograms[MetricName.answerToAudioCallee],
                     "audio after a one-way episode is its end, not answer → audio (OneWayAudioDetector)")
    }

    /// Loss toward the caller only: the caller's stream counts the gaps as lost, the callee's loses nothing, no
    /// one-way audio at 20 %, and the same seed drops the same packets.
    func testMediaLossActsOnOneDirectionAndIsSeeded() throws {
        let faults = """
            faults:
              - { name: lossy, at: 0s, for: 10s, sip: { media_loss: 20%, media_direction: callee_to_caller } }

            """
        let first = try rig(faults).run().counters
        let lost = try XCTUnwrap(first[MetricName.fault(MediaLossFault.lost + ".packets")])
        XCTAssertGreaterThan(lost, 5, "\(first)")
        let gaps = try XCTUnwrap(first["media.packets_lost"], "\(first)")
        XCTAssertTrue(gaps <= lost && gaps > 0, "each dropped packet a gap at the caller (but a last one): \(first)")
        XCTAssertNil(first[MetricName.mediaOneWay], "\(first)")
        XCTAssertEqual(first[MetricName.fault(MediaLossFault.lost)], 1, "one stream direction hit: \(first)")
        XCTAssertEqual(try rig(faults).run().counters, first)
    }
}
