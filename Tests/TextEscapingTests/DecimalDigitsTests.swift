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

    private func read(_ text: String) -> UInt64? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalDigits.eight($0.baseAddress!) }
    }
}
