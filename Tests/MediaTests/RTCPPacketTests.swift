import Media
import XCTest

final class RTCPPacketTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> [RTCPPacket] {
        try bytes.withUnsafeBytes { try RTCPPacket.parseCompound($0) }
    }

    private func parseError(_ bytes: [UInt8]) -> RTCPParseError? {
        do {
            _ = try parse(bytes)
            return nil
        } catch let error as RTCPParseError {
            return error
        } catch {
            return nil
        }
    }

    private let block = RTCPReportBlock(ssrc: 0x1111_2222, fractionLost: 64, cumulativeLost: -3,
                                        extendedHighestSequence: 0x0001_0005, jitter: 37,
                                        lastSenderReport: 0xABCD_0000, delaySinceLastSenderReport: 65_536)

    func testAReceiverReportIsWrittenAsRFC3550LaysItOut() {
        let bytes = RTCPPacket.writeCompound([.receiverReport(RTCPReceiverReport(ssrc: 0xCAFE_BABE, reports: [block]))])
        XCTAssertEqual(bytes.count, 32)
        XCTAssertEqual(Array(bytes[0..<8]), [0x81, 201, 0, 7, 0xCA, 0xFE, 0xBA, 0xBE], "V=2 RC=1, PT=201, 8 words - 1")
        // fraction 64, cumulative lost -3 as 24-bit two's complement
        XCTAssertEqual(Array(bytes[12..<16]), [64, 0xFF, 0xFF, 0xFD])
    }

    func testSenderAndReceiverReportsRoundTripInACompound() throws {
        let sr = RTCPSenderReport(ssrc: 1, ntpTimestamp: 0xE8F0_1234_8000_0000, rtpTimestamp: 160_000,
                                  packetCount: 1_000, octetCount: 160_000, reports: [block])
        let rr = RTCPReceiverReport(ssrc: 2, reports: [block, block])
        var bytes = RTCPPacket.writeCompound([.senderReport(sr), .receiverReport(rr)])
        XCTAssertEqual(bytes.count, 52 + 56)
        // An SDES after the reports is kept by type and size.
        bytes += [0x81, 202, 0, 1, 0, 0, 0, 1]
        XCTAssertEqual(try parse(bytes), [.senderReport(sr), .receiverReport(rr), .other(type: 202, length: 8)])
        XCTAssertEqual(sr.compactNTP, 0x1234_8000)
        guard case .senderReport(let read)? = try parse(bytes).first else { return XCTFail("no SR first") }
        XCTAssertEqual(read.reports[0].cumulativeLost, -3, "the 24-bit count is sign-extended")
    }

    func testCumulativeLostIsClampedTo24Bits() throws {
        let big = RTCPReportBlock(ssrc: 1, fractionLost: 0, cumulativeLost: 50_000_000, extendedHighestSequence: 0,
                                  jitter: 0)
        XCTAssertEqual(big.cumulativeLost, 0x7F_FFFF)
        let bytes = RTCPPacket.writeCompound([.receiverReport(RTCPReceiverReport(ssrc: 3, reports: [big]))])
        XCTAssertEqual(try parse(bytes), [.receiverReport(RTCPReceiverReport(ssrc: 3, reports: [big]))])
    }

    func testMalformedCompoundsNameWhatIsWrong() {
        let rr = RTCPPacket.writeCompound([.receiverReport(RTCPReceiverReport(ssrc: 2, reports: [block]))])
        XCTAssertEqual(parseError([]), .shorterThanHeader(length: 0))
        XCTAssertEqual(parseError([0x81, 201, 0]), .shorterThanHeader(length: 3))
        XCTAssertEqual(parseError([0x41] + rr.dropFirst()), .wrongVersion(1))
        XCTAssertEqual(parseError(Array(rr.prefix(28))), .lengthBeyondEnd(stated: 32, available: 28))
        // RC=2 in a packet that holds one block.
        XCTAssertEqual(parseError([0x82] + rr.dropFirst()), .reportBlocksBeyondLength(count: 2, length: 32))
        XCTAssertEqual(parseError([0x81, 202, 0, 1, 0, 0, 0, 1]), .firstPacketNotAReport(type: 202))
        // Padding on a packet that is not the last.
        XCTAssertEqual(parseError([0xA0, 201, 0, 1, 0, 0, 0, 4] + rr), .badPadding(padding: 4, packetLength: 8))
        XCTAssertEqual(RTCPParseError.reportBlocksBeyondLength(count: 1, length: 0).kind, .rtcpReportCount)
    }

    func testAReportBlockFromReceiverStatisticsCarriesLossAndJitter() {
        var stats = RTPReceiverStatistics()
        for (i, seq) in [UInt16(10), 11, 13, 14].enumerated() {
            stats.note(sequence: seq, timestamp: UInt32(seq) * 160, payloadBytes: 160,
                       arrivalNanos: UInt64(i) * 20_000_000)
        }
        let block = stats.takeReportBlock(ssrc: 77)
        // expected 5 (10...14), received 4: lost 1, fraction 1 × 256 / 5 = 51
        XCTAssertEqual(block.cumulativeLost, 1)
        XCTAssertEqual(block.fractionLost, 51)
        XCTAssertEqual(block.extendedHighestSequence, 14)
        // The next interval starts empty.
        XCTAssertEqual(stats.takeReportBlock(ssrc: 77).fractionLost, 0)
    }
}
