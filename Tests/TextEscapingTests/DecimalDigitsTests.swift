import TextEscaping
import XCTest

/// Eight digits read in one step give what a digit-by-digit read gives, and any byte that is not a digit refuses.
final class DecimalDigitsTests: XCTestCase {
    func testEightDigitsReadAsTheirDecimalValue() {
        for text in ["00000000", "12345678", "99999999", "00000001", "10000000", "17650123"] {
            XCTAssertEqual(read(text), UInt64(text), text)
        }
    }

    func testAnyByteOutsideTheDigitsRefusesTheEight() {
        for position in 0..<8 {
            for byte: UInt8 in [0x2F, 0x3A, 0x20, 0x22, 0x2E, 0xB0, 0x00, 0x39 + 0x10] {
                var bytes = Array("12345678".utf8)
                bytes[position] = byte
                XCTAssertNil(bytes.withUnsafeBufferPointer { DecimalDigits.eight($0.baseAddress!) },
                             "byte \(byte) at \(position)")
            }
        }
    }

    func testLeadingDigitsReadUpToTheFirstOtherByteWhateverFollowsIt() {
        // Every count 0...8 of leading digits, then each kind of byte (around the digits' range, high bytes whose
        // +6 carries into the next byte), then digits or not.
        for count in 0...8 {
            for other: UInt8 in [0x2C, 0x2F, 0x3A, 0x3F, 0x00, 0x20, 0xFA, 0xFF, 0x7F] {
                for tail: UInt8 in [0x30, 0x39, 0xFF, 0x00] {
                    var bytes = (0..<count).map { UInt8(0x30 + ($0 * 7 + 3) % 10) }
                    while bytes.count < 8 { bytes.append(bytes.count == count ? other : tail) }
                    let chunk = bytes.withUnsafeBufferPointer {
                        UInt64(littleEndian: UnsafeRawPointer($0.baseAddress!).loadUnaligned(as: UInt64.self))
                    }
                    let (value, n) = DecimalDigits.leading(chunk)
                    let text = String(decoding: bytes.prefix(count), as: UTF8.self)
                    XCTAssertEqual(n, count, "\(count) digits then \(other), \(tail)")
                    XCTAssertEqual(value, UInt64(text) ?? 0, "\(count) digits then \(other), \(tail)")
                }
            }
        }
    }

    private func read(_ text: String) -> UInt64? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalDigits.eight($0.baseAddress!) }
    }
}
