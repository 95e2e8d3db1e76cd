import XCTest
@testable import WebSocket

final class FrameParserTests: XCTestCase {
    private func parse(_ bytes: [UInt8], role: Role = .client, max: Int = 1 << 20) throws(FrameError) -> Frame? {
        var parser = FrameParser(role: role, maxFrameBytes: max)
        parser.append(bytes)
        return try parser.next()
    }

    private func expect(_ bytes: [UInt8], role: Role = .client, max: Int = 1 << 20, _ error: FrameError,
                        code: CloseCode, line: UInt = #line) {
        do {
            _ = try parse(bytes, role: role, max: max)
            XCTFail("accepted a bad frame", line: line)
        } catch {
            XCTAssertEqual(error, error, line: line)
            XCTAssertEqual(error.closeCode, code, line: line)
        }
    }

    func testRFCExampleFramesDecode() throws {
        // RFC 6455 §5.7: an unmasked "Hello" and the masked one.
        XCTAssertEqual(try parse([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]),
                       Frame(opcode: .text, payload: Array("Hello".utf8)))
        XCTAssertEqual(try parse([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], role: .server),
                       Frame(opcode: .text, payload: Array("Hello".utf8)))
    }

    func testEncoderRoundTripsEveryLengthFormAndMasking() throws {
        for count in [0, 1, 125, 126, 127, 65535, 65536, 70000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let clear = FrameEncoder.frame(.binary, payload)
            XCTAssertEqual(clear.count, payload.count + (count < 126 ? 2 : count <= 65535 ? 4 : 10))
            XCTAssertEqual(try parse(clear)?.payload, payload)
            let masked = FrameEncoder.frame(.binary, payload, maskKey: 0xDEADBEEF)
            XCTAssertEqual(try parse(masked, role: .server)?.payload, payload)
        }
    }

    func testFramesSplitAcrossChunksOfEverySizeComeOutWhole() throws {
        var stream: [UInt8] = []
        FrameEncoder.append(.text, payload: Array("first".utf8), maskKey: 7, to: &stream)
        FrameEncoder.append(.binary, payload: [UInt8](repeating: 9, count: 300), maskKey: 8, to: &stream)
        FrameEncoder.append(.ping, payload: [1, 2], maskKey: 9, to: &stream)
        for chunk in [1, 2, 3, 7, 64, stream.count] {
            var parser = FrameParser(role: .server)
            var frames: [Frame] = []
            var start = 0
            while start < stream.count {
                parser.append(Array(stream[start..<min(stream.count, start + chunk)]))
                start += chunk
                while let frame = try parser.next() { frames.append(frame) }
            }
            XCTAssertEqual(frames.map(\.opcode), [.text, .binary, .ping], "chunk \(chunk)")
            XCTAssertEqual(frames[1].payload.count, 300)
            XCTAssertEqual(parser.bufferedBytes, 0)
        }
    }

    func testReservedOpcodesAndBitsAre1002() {
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            expect([0x80 | opcode, 0x00], .unknownOpcode(opcode), code: .protocolError)
        }
        expect([0xC1, 0x00], .reservedBitsSet(4), code: .protocolError)
        expect([0x91, 0x00], .reservedBitsSet(1), code: .protocolError)
    }

    func testMaskRulesDependOnTheRole() {
        expect([0x81, 0x81, 1, 2, 3, 4, 0x41], role: .client, .maskedFrameFromServer, code: .protocolError)
        expect([0x81, 0x01, 0x41], role: .server, .unmaskedFrameFromClient, code: .protocolError)
    }

    func testControlFramesMustBeShortAndWhole() {
        expect([0x09, 0x00], .fragmentedControlFrame, code: .protocolError)
        expect([0x88, 126, 0, 126] + [UInt8](repeating: 0, count: 126), .controlFrameTooLong(126),
               code: .protocolError)
        XCTAssertEqual(try parse([0x89, 125] + [UInt8](repeating: 1, count: 125))?.payload.count, 125)
    }

    func testOversizeIsRefusedFromTheHeaderAlone() {
        // Only the header arrives: the 1009 comes before any payload is buffered.
        expect([0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0], max: 1024, .messageTooBig(limit: 1024), code: .messageTooBig)
        expect([0x82, 126, 0x04, 0x01], max: 1024, .messageTooBig(limit: 1024), code: .messageTooBig)
        expect([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1], .invalidLength, code: .protocolError)
    }

    func testIncompleteHeaderWaits() throws {
        XCTAssertNil(try parse([0x82]))
        XCTAssertNil(try parse([0x82, 126, 0x01]))
        XCTAssertNil(try parse([0x82, 0x85, 1, 2], role: .server), "mask key incomplete")
    }
}
