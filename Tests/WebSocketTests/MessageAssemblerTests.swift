import XCTest
@testable import WebSocket

final class MessageAssemblerTests: XCTestCase {
    private func messages(_ frames: [Frame], max: Int = 1 << 20) throws(FrameError) -> [Message] {
        var assembler = MessageAssembler(maxMessageBytes: max)
        var out: [Message] = []
        for frame in frames { if let message = try assembler.take(frame) { out.append(message) } }
        return out
    }

    func testFragmentsJoinWithControlFramesBetweenThem() throws {
        let got = try messages([
            Frame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            Frame(opcode: .ping, payload: [7]),
            Frame(fin: false, opcode: .continuation, payload: Array("l".utf8)),
            Frame(opcode: .continuation, payload: Array("o".utf8)),
        ])
        XCTAssertEqual(got, [.ping([7]), .text("Hello")])
    }

    func testUTF8SplitAcrossFragmentsIsValidOnlyWhole() throws {
        let euro = Array("€".utf8)
        let got = try messages([Frame(fin: false, opcode: .text, payload: [euro[0]]),
                                Frame(opcode: .continuation, payload: Array(euro[1...]))])
        XCTAssertEqual(got, [.text("€")])
    }

    func testInvalidUTF8TextIs1007() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            XCTAssertThrowsError(try messages([Frame(opcode: .text, payload: bad)])) { error in
                XCTAssertEqual(error as? FrameError, .invalidUTF8)
                XCTAssertEqual((error as? FrameError)?.closeCode, .invalidPayload)
            }
        }
        XCTAssertEqual(try? messages([Frame(opcode: .binary, payload: [0xFF])]), [.binary([0xFF])])
    }

    func testContinuationOrderIsEnforced() {
        XCTAssertThrowsError(try messages([Frame(opcode: .continuation, payload: [])])) {
            XCTAssertEqual($0 as? FrameError, .unexpectedContinuation)
        }
        XCTAssertThrowsError(try messages([Frame(fin: false, opcode: .text, payload: []),
                                           Frame(opcode: .binary, payload: [])])) {
            XCTAssertEqual($0 as? FrameError, .expectedContinuation)
        }
    }

    func testReassembledMessageOverTheLimitIs1009() {
        let sixty = [UInt8](repeating: 0, count: 60)
        XCTAssertThrowsError(try messages([Frame(fin: false, opcode: .binary, payload: sixty),
                                           Frame(opcode: .continuation, payload: sixty)], max: 100)) {
            XCTAssertEqual(($0 as? FrameError)?.closeCode, .messageTooBig)
        }
    }

    func testClosePayloadRules() throws {
        XCTAssertEqual(try messages([Frame(opcode: .close, payload: [])]), [.close(nil, "")])
        let bye = FrameEncoder.closePayload(.goingAway, reason: "bye")
        XCTAssertEqual(try messages([Frame(opcode: .close, payload: bye)]), [.close(.goingAway, "bye")])
        XCTAssertThrowsError(try messages([Frame(opcode: .close, payload: [3])])) {
            XCTAssertEqual($0 as? FrameError, .invalidClosePayload)
        }
        for code: UInt16 in [999, 1004, 1005, 1006, 1015, 2000, 5000] {
            let payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
            XCTAssertThrowsError(try messages([Frame(opcode: .close, payload: payload)])) {
                XCTAssertEqual($0 as? FrameError, .invalidCloseCode(code))
            }
        }
        XCTAssertThrowsError(try messages([Frame(opcode: .close, payload: [0x03, 0xE8, 0xFF])])) {
            XCTAssertEqual($0 as? FrameError, .invalidUTF8)
        }
    }

    func testCloseReasonIsCutToFitAControlFrameAtACharacterBoundary() {
        let payload = FrameEncoder.closePayload(.normal, reason: String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(payload.count, 125)
        XCTAssertTrue(UTF8Validation.isValid(Array(payload[2...])))
    }
}
