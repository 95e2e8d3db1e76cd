import Media
import XCTest

final class RTPHeaderTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> (header: RTPHeader, payload: Range<Int>) {
        try bytes.withUnsafeBytes { try RTPHeader.parse($0) }
    }

    private func parseError(_ bytes: [UInt8]) -> RTPParseError? {
        do {
            _ = try parse(bytes)
            return nil
        } catch let error as RTPParseError {
            return error
        } catch {
            return nil
        }
    }

    func testAHandWrittenPCMUHeaderReadsFieldByField() throws {
        // V=2 P=0 X=0 CC=0 | M=1 PT=0 | seq 0x1234 | ts 0xDEADBEEF | SSRC 0x01020304 | 2 payload bytes
        let bytes: [UInt8] = [0x80, 0x80, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04, 0xFF, 0xFF]
        let (header, payload) = try parse(bytes)
        XCTAssertEqual(header, RTPHeader(payloadType: 0, sequence: 0x1234, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304,
                                         marker: true))
        XCTAssertEqual(payload, 12..<14)
    }

    func testCSRCsExtensionAndPaddingRoundTrip() throws {
        let header = RTPHeader(payloadType: 8, sequence: 65_535, timestamp: 7, ssrc: 9, marker: false, padding: 3,
                               csrcs: [0xAABB_CCDD, 5],
                               headerExtension: RTPHeaderExtension(profile: 0xBEDE, data: [1, 2, 3, 4, 5, 6, 7, 8]))
        var bytes: [UInt8] = []
        header.write(into: &bytes)
        XCTAssertEqual(bytes.count, header.byteCount)
        XCTAssertEqual(bytes[0], 0x80 | 0x20 | 0x10 | 2, "V=2, P, X, CC=2")
        bytes.append(contentsOf: [0x11, 0x22])
        header.appendPadding(into: &bytes)
        XCTAssertEqual(Array(bytes.suffix(3)), [0, 0, 3])
        let (read, payload) = try parse(bytes)
        XCTAssertEqual(read, header)
        XCTAssertEqual(Array(bytes[payload]), [0x11, 0x22])
    }

    func testMalformedPacketsNameWhatIsWrong() {
        let good: [UInt8] = [0x80, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]
        XCTAssertEqual(parseError(Array(good.prefix(11))), .shorterThanHeader(length: 11))
        XCTAssertEqual(parseError([0x40] + good.dropFirst()), .wrongVersion(1))
        XCTAssertEqual(parseError([0x82] + good.dropFirst() + [0, 0, 0, 0]),
                       .csrcListBeyondEnd(csrcCount: 2, length: 16))
        XCTAssertEqual(parseError([0x90] + good.dropFirst() + [0xBE, 0xDE]),
                       .extensionBeyondEnd(extensionBytes: 4, length: 14))
        XCTAssertEqual(parseError([0x90] + good.dropFirst() + [0xBE, 0xDE, 0, 2, 1, 2, 3, 4]),
                       .extensionBeyondEnd(extensionBytes: 12, length: 20))
        XCTAssertEqual(parseError([0xA0] + good.dropFirst() + [9, 0]), .paddingBeyondPayload(padding: 0, available: 2))
        XCTAssertEqual(parseError([0xA0] + good.dropFirst() + [9, 3]), .paddingBeyondPayload(padding: 3, available: 2))
        XCTAssertEqual(RTPParseError.wrongVersion(1).kind, .version)
        XCTAssertEqual(RTPParseError.paddingBeyondPayload(padding: 0, available: 0).kind, .padding)
    }

    func testMalformedCountsKeepTheirKinds() {
        var counts = MediaMalformedCounts()
        counts.count(.short)
        counts.count(.short)
        counts.count(.rtcpLength)
        XCTAssertEqual(counts[.short], 2)
        XCTAssertEqual(counts.total, 3)
        XCTAssertEqual(counts.byKey, ["short": 2, "rtcp_length": 1])
    }
}
