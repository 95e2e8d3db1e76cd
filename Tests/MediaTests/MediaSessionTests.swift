import Media
import XCTest

/// One end's `MediaSession` fed packets by hand: what it counts as the far end, as strays, as malformed.
final class MediaSessionTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func packet(ssrc: UInt32, sequence: UInt16, pt: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        RTPHeader(payloadType: pt, sequence: sequence, timestamp: UInt32(sequence) * 160, ssrc: ssrc).write(into: &out)
        MediaPayload.append(codec: .pcmu, pattern: .silence, ssrc: ssrc, sequence: sequence, sentNanos: 0, into: &out)
        return out
    }

    private func feed(_ session: inout MediaSession, _ bytes: [UInt8], at now: UInt64) -> MediaEvent? {
        bytes.withUnsafeBytes { session.receive($0, at: now) }
    }

    func testTheFirstSourceHeardIsTheFarEndAndTheRestAreStrays() {
        var s = MediaSession(settings: MediaStreamSettings(ssrc: 0xA))
        s.start(at: 0, direction: .sendrecv)
        XCTAssertEqual(feed(&s, packet(ssrc: 0xB, sequence: 1), at: 30 * ms), .firstAudio(afterAnswerNanos: 30 * ms))
        XCTAssertNil(feed(&s, packet(ssrc: 0xC, sequence: 1), at: 40 * ms))
        XCTAssertNil(feed(&s, packet(ssrc: 0xA, sequence: 9), at: 50 * ms))
        XCTAssertNil(feed(&s, packet(ssrc: 0xB, sequence: 2, pt: 8), at: 50 * ms))
        XCTAssertNil(feed(&s, [0x80, 0, 1], at: 60 * ms))
        XCTAssertEqual(s.remoteSSRC, 0xB)
        XCTAssertEqual(s.strays.otherSources, 1)
        XCTAssertEqual(s.strays.ownPackets, 1)
        XCTAssertEqual(s.strays.otherPayloadType, 1)
        XCTAssertEqual(s.receiver.received, 2)
        XCTAssertEqual(s.malformed[.short], 1)
    }

    func testItSendsAPacketEvery20msWithMarkerTimestampAndSignature() throws {
        var s = MediaSession(settings: MediaStreamSettings(codec: .pcma, ssrc: 0xA, initialSequence: 65_535,
                                                           initialTimestamp: 1_000))
        var out: [UInt8] = []
        XCTAssertFalse(s.nextPacket(now: 0, into: &out), "nothing before the answer")
        s.start(at: 100 * ms, direction: .sendrecv)
        XCTAssertEqual(s.nextDeadline, 100 * ms)
        XCTAssertTrue(s.nextPacket(now: 100 * ms, into: &out))
        XCTAssertFalse(s.nextPacket(now: 100 * ms, into: &out))
        let first = try out.withUnsafeBytes { try RTPHeader.parse($0) }
        XCTAssertEqual(first.header,
                       RTPHeader(payloadType: 8, sequence: 65_535, timestamp: 1_000, ssrc: 0xA, marker: true))
        XCTAssertEqual(first.payload.count, 160)
        XCTAssertTrue(s.nextPacket(now: 121 * ms, into: &out))
        let second = try out.withUnsafeBytes { try RTPHeader.parse($0) }
        XCTAssertEqual(second.header, RTPHeader(payloadType: 8, sequence: 0, timestamp: 1_160, ssrc: 0xA))
        XCTAssertEqual(out.withUnsafeBytes { MediaPayload.signature(UnsafeRawBufferPointer(rebasing: $0[12...])) },
                       MediaPayload.Signature(ssrc: 0xA, sequence: 0, sentNanos: 121 * ms))
        XCTAssertEqual(s.sent.packets, 2)
        XCTAssertEqual(s.sent.octets, 320)
        XCTAssertEqual(s.sendLag.maxNanos, 1 * ms)
    }

    /// `sendAfterNanos` (the app's audio session, `device.audio_session`): the first packet waits for it, the
    /// listening and the answer → audio clock do not.
    func testAStartWithASendDelaySendsItsFirstPacketThenButListensFromTheAnswer() throws {
        var s = MediaSession(settings: MediaStreamSettings(ssrc: 0xA))
        var out: [UInt8] = []
        s.start(at: 100 * ms, direction: .sendrecv, sendAfterNanos: 50 * ms)
        XCTAssertEqual(s.nextDeadline, 150 * ms, "the first send is the next thing due")
        XCTAssertFalse(s.nextPacket(now: 149 * ms, into: &out), "the audio session is not up yet")
        XCTAssertEqual(feed(&s, packet(ssrc: 0xB, sequence: 1), at: 102 * ms), .firstAudio(afterAnswerNanos: 2 * ms))
        XCTAssertTrue(s.nextPacket(now: 150 * ms, into: &out))
        XCTAssertEqual(try RTPHeader.parse(out.withUnsafeBytes { $0 }).header.marker, true, "a talkspurt begins")
        XCTAssertFalse(s.nextPacket(now: 150 * ms, into: &out))
        XCTAssertEqual(s.nextDeadline, 170 * ms)
        XCTAssertEqual(s.sent.packets, 1)
    }

    func testAHeldEndSendsNothingAndResumesWithTheClockRunning() throws {
        var s = MediaSession(settings: MediaStreamSettings(ssrc: 0xA))
        var out: [UInt8] = []
        s.start(at: 0, direction: .sendrecv)
        XCTAssertTrue(s.nextPacket(now: 0, into: &out))
        _ = s.setDirection(.recvonly, at: 10 * ms)
        XCTAssertFalse(s.nextPacket(now: 500 * ms, into: &out))
        _ = s.setDirection(.sendrecv, at: 1_010 * ms)
        XCTAssertFalse(s.nextPacket(now: 1_010 * ms, into: &out))
        XCTAssertTrue(s.nextPacket(now: 1_020 * ms, into: &out))
        let header = try out.withUnsafeBytes { try RTPHeader.parse($0) }.header
        XCTAssertEqual(header.sequence, 1, "no sequence is skipped")
        XCTAssertEqual(header.timestamp, 51 * 160, "the timestamp is the slot's: 1,020 ms = slot 51")
        XCTAssertTrue(header.marker, "a resume starts a talkspurt")
    }

    func testTheRTCPReportIsAnRRUntilItSentThenAnSRWithABlockOnTheFarEnd() throws {
        var s = MediaSession(settings: MediaStreamSettings(ssrc: 0xA, initialTimestamp: 500))
        s.start(at: 0, direction: .sendrecv)
        XCTAssertEqual(s.rtcpReport(nowNanos: 0, ntpTimestamp: 1), .receiverReport(RTCPReceiverReport(ssrc: 0xA)))
        for seq: UInt16 in [1, 2, 4] { _ = feed(&s, packet(ssrc: 0xB, sequence: seq), at: UInt64(seq) * 20 * ms) }
        var out: [UInt8] = []
        _ = s.nextPacket(now: 0, into: &out)
        guard case .senderReport(let sr) = s.rtcpReport(nowNanos: 1_000 * ms, ntpTimestamp: 7 << 32) else {
            return XCTFail("an end that sent reports with an SR")
        }
        XCTAssertEqual(sr.packetCount, 1)
        XCTAssertEqual(sr.octetCount, 160)
        XCTAssertEqual(sr.rtpTimestamp, 500 + 8_000, "one second of 8 kHz after the answer")
        XCTAssertEqual(sr.reports.map(\.ssrc), [0xB])
        XCTAssertEqual(sr.reports.first?.cumulativeLost, 1)
        XCTAssertEqual(sr.reports.first?.fractionLost, 64, "1 of 4 expected: 256 / 4")
        let bytes = RTCPPacket.writeCompound([.senderReport(sr)])
        XCTAssertEqual(try bytes.withUnsafeBytes { try RTCPPacket.parseCompound($0) }, [.senderReport(sr)])
    }
}
