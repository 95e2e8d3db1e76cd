import Determinism
import Media
import MediaIO
import SIP
import XCTest

/// Two ends of a call on the media twin under a manual clock: every count is exact.
final class MemoryMediaStreamsTests: XCTestCase {
    private let ms: UInt64 = 1_000_000
    private var clock: ManualClock!
    private var wire: MediaWire!
    private var events: [(stream: Int, event: MediaEvent)] = []
    private var streams: MemoryMediaStreams!
    private var a = 0
    private var b = 0

    override func setUp() {
        clock = ManualClock()
        wire = MediaWire(clock: clock)
        events = []
        streams = MemoryMediaStreams(wire: wire) { [unowned self] id, event in events.append((id, event)) }
        a = try! streams.open(MediaStreamSettings(codec: .pcmu, ssrc: 0xA, initialSequence: 0)).get()
        b = try! streams.open(MediaStreamSettings(codec: .pcmu, ssrc: 0xB, initialSequence: 1_000)).get()
    }

    private var start: UInt64 { 1_000_000_000 }

    private func answer(_ direction: MediaDirection = .sendrecv) {
        streams.start(a, remote: streams.localEndpoint(b)!, direction: direction)
        streams.start(b, remote: streams.localEndpoint(a)!, direction: direction)
    }

    private func run(to millis: UInt64) { wire.run(until: start + millis * ms, clock: clock) }

    func testBothEndsCountWhatTheOtherSent() {
        answer()
        run(to: 990)
        let ra = streams.report(a)!, rb = streams.report(b)!
        // Sends at 0, 20, ..., 980 ms: 50 each way.
        XCTAssertEqual(ra.sent.packets, 50)
        XCTAssertEqual(rb.receiver.received, 50)
        XCTAssertEqual(rb.receiver.lost, 0)
        XCTAssertEqual(rb.receiver.jitter.jitter, 0)
        XCTAssertEqual(ra.receiver.received, rb.sent.packets)
        XCTAssertEqual(rb.receiver.octets, 50 * 160)
        XCTAssertEqual(rb.detector.answerToAudioNanos, 0)
        XCTAssertEqual(ra.sendLag.maxNanos, 0, "the twin sends exactly on time")
        XCTAssertEqual(wire.delivered, 100)
        XCTAssertEqual(events.filter { if case .firstAudio = $0.event { return true } else { return false } }.count, 2)
    }

    func testInjectedLossAndReorderingGiveExactCounts() {
        // A → B: drop sequences 5, 6 and 20; hold 30 back 30 ms, so it arrives after 31.
        wire.fate = { [a = streams.localEndpoint(a)!] datagram in
            guard datagram.from == a else { return .pass }
            switch datagram.sequence {
            case 5, 6, 20: return .drop
            case 30: return .delay(nanos: 30_000_000)
            default: return .pass
            }
        }
        answer()
        run(to: 990)
        let rb = streams.report(b)!.receiver
        XCTAssertEqual(rb.expected, 50)
        XCTAssertEqual(rb.received, 47)
        XCTAssertEqual(rb.lost, 3)
        XCTAssertEqual(rb.sequence.late, 1)
        XCTAssertEqual(rb.lossPercent, 6)
        XCTAssertGreaterThan(rb.jitter.maxJitter, 0)
        XCTAssertEqual(wire.dropped, 3)
        XCTAssertEqual(streams.report(a)!.receiver.lost, 0, "the other direction is clean")
    }

    func testTheDatagramFilterActsAsARunsChaosWould() {
        streams.datagramFilter = { [a] stream, sending, sequence in
            stream == a && sending && sequence % 10 == 0 ? .drop : .pass
        }
        answer()
        run(to: 990)
        // A's sequences 0...49: 0, 10, 20, 30, 40 dropped; B's books start at 1, so 0 is never expected.
        let rb = streams.report(b)!.receiver
        XCTAssertEqual(rb.received, 45)
        XCTAssertEqual(rb.expected, 49)
        XCTAssertEqual(rb.lost, 4)
    }

    func testTheFilterDelaysSendsAndReadsOnTheStreamsOwnTimer() {
        // A's send of 20 held 30 ms; B's read of 10 held 50 ms: both arrive after later packets.
        streams.datagramFilter = { [a, b] stream, sending, sequence in
            if stream == a, sending, sequence == 20 { return .delay(nanos: 30_000_000) }
            if stream == b, !sending, sequence == 10 { return .delay(nanos: 50_000_000) }
            return .pass
        }
        answer()
        run(to: 990)
        let rb = streams.report(b)!.receiver
        XCTAssertEqual(rb.received, 50)
        XCTAssertEqual(rb.lost, 0)
        XCTAssertEqual(rb.sequence.late, 2)
        XCTAssertEqual(rb.sequence.duplicates, 0)
    }

    func testADirectionThatNeverArrivesIsOneWayAudio() {
        wire.fate = { [b = streams.localEndpoint(b)!] datagram in datagram.from == b ? .drop : .pass }
        answer()
        run(to: 3_000)
        let found = events.filter { $0.stream == a }.map(\.event)
        let episode = OneWayAudioDetector.Episode(cause: .noAudioAfterAnswer, since: start, foundAt: start + 1_000 * ms)
        XCTAssertEqual(found, [.oneWayBegan(episode)])
        XCTAssertEqual(streams.report(b)!.detector.episodes, [])
        let final = streams.close(a)!
        XCTAssertEqual(final.detector.episodes.first?.endedAt, start + 3_000 * ms)
        XCTAssertNil(final.detector.answerToAudioNanos)
    }

    func testHoldSilencesTheHeldSideWithoutOneWayAudioAndResumeIsMeasured() {
        wire.latencyNanos = 10 * ms
        answer()
        run(to: 2_000)
        // A holds: A sendonly, B (the held) answers recvonly and stops sending.
        streams.update(a, remote: streams.localEndpoint(b)!, direction: .sendonly)
        streams.update(b, remote: streams.localEndpoint(a)!, direction: .recvonly)
        run(to: 7_000)
        XCTAssertEqual(streams.report(a)!.detector.episodes, [], "the held side's silence is expected")
        XCTAssertEqual(streams.report(b)!.detector.episodes, [], "the holder's audio kept flowing")
        XCTAssertEqual(streams.report(a)!.detector.packetsWhileNotExpected, 0)
        streams.update(a, remote: streams.localEndpoint(b)!, direction: .sendrecv)
        streams.update(b, remote: streams.localEndpoint(a)!, direction: .sendrecv)
        run(to: 8_000)
        // B's next slot is at 7,000 ms exactly; it arrives 10 ms later.
        XCTAssertEqual(streams.report(a)!.detector.resumeToAudioNanos, [10 * ms])
        XCTAssertEqual(streams.report(a)!.receiver.lost, 0, "no packet was sent while held, none is missing")
    }

    func testAStreamClosedByTheFarEndStopsCounting() {
        answer()
        run(to: 500)
        let final = streams.close(b)!
        run(to: 600)
        XCTAssertEqual(final.receiver.received, 26)
        XCTAssertEqual(wire.undeliverable, 5, "A's packets at 520...600 ms met a closed port")
        XCTAssertNil(streams.report(b))
    }

    func testClosingAnEarlierStreamLeavesTheOthersCountingUnderTheirIDs() {
        // The table keeps streams in a dense array and moves the last into a closed one's place: the streams
        // opened after the closed one must keep their ids, their sessions and their timers.
        let c = try! streams.open(MediaStreamSettings(codec: .pcmu, ssrc: 0xC, initialSequence: 7)).get()
        let d = try! streams.open(MediaStreamSettings(codec: .pcmu, ssrc: 0xD, initialSequence: 9)).get()
        answer()
        streams.start(c, remote: streams.localEndpoint(d)!, direction: .sendrecv)
        streams.start(d, remote: streams.localEndpoint(c)!, direction: .sendrecv)
        run(to: 500)
        XCTAssertNotNil(streams.close(a))
        run(to: 990)
        XCTAssertNil(streams.report(a))
        XCTAssertEqual(streams.report(c)!.sent.packets, 50)
        XCTAssertEqual(streams.report(d)!.receiver.received, 50)
        XCTAssertEqual(streams.report(c)!.receiver.received, 50)
        XCTAssertEqual(streams.report(d)!.receiver.lost, 0)
        XCTAssertEqual(streams.report(b)!.receiver.received, 26, "A's packets at 0...500 ms, none after its close")
        XCTAssertEqual(streams.report(b)!.sent.packets, 50)
    }

    func testSDPNamesTheEndpointDirectionAndCodec() {
        let sdp = SDPSession(address: "10.0.0.7", port: 4_000, formats: [18, 8, 0], direction: .sendonly)
        XCTAssertEqual(MediaEndpoint(sdp), MediaEndpoint(host: "10.0.0.7", port: 4_000))
        XCTAssertEqual(MediaDirection(sdp.direction), .sendonly)
        XCTAssertEqual(MediaCodec(sdp), .pcma)
        XCTAssertNil(MediaCodec(SDPSession(address: "x", port: 1, formats: [18])))
    }
}
