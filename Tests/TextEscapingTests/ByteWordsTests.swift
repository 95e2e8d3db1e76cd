import TextEscaping
import XCTest

/// The eight-bytes-a-step scans (`ByteWords`, `JSONText.isPlain`, `CSVText.isPlainField`) say what a byte loop says,
/// for every length around the word steps, a byte of interest in every position, bytes beside the ones looked for,
/// and texts that end exactly where their memory ends (the tail word is built without reading past it).
final class ByteWordsTests: XCTestCase {
    /// Bytes the scans look for and their neighbours, which they must not take for them.
    static let probes: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x1F, 0x20, 0x21, 0x22, 0x23,
                                  0x2B, 0x2C, 0x2D, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]

    private static func plainJSON(_ bytes: [UInt8]) -> Bool {
        !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    }

    private static func plainCSV(_ bytes: [UInt8]) -> Bool {
        !bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    }

    /// `body` on a copy of `bytes` in memory of exactly their size.
    private func exact<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        defer { memory.deallocate() }
        memory.initialize(from: bytes, count: bytes.count)
        return body(memory, bytes.count)
    }

    func testPlainChecksAgreeWithAByteLoopForEveryLengthPositionAndByte() {
        for length in 0...24 {
            let letters = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            XCTAssertTrue(exact(letters) { JSONText.isPlain($0, $1) }, "\(length)")
            XCTAssertTrue(exact(letters) { CSVText.isPlainField($0, $1) }, "\(length)")
            for position in 0..<length {
                for probe in Self.probes {
                    var bytes = letters
                    bytes[position] = probe
                    XCTAssertEqual(exact(bytes) { JSONText.isPlain($0, $1) }, Self.plainJSON(bytes),
                                   "json \(length) \(position) \(probe)")
                    XCTAssertEqual(exact(bytes) { CSVText.isPlainField($0, $1) }, Self.plainCSV(bytes),
                                   "csv \(length) \(position) \(probe)")
                }
            }
        }
    }

    /// A borrow from a matching byte may flag the byte above it; the first flag is still the first match.
    func testTheFirstFlaggedByteIsTheFirstMatch() {
        for position in 0..<8 {
            for after in Self.probes {
                var bytes = [UInt8](repeating: 0x61, count: 8)
                bytes[position] = 0x22
                if position < 7 { bytes[position + 1] = after }
                let flags = exact(bytes) { p, _ in ByteWords.equal(ByteWords.load(p), 0x22) }
                XCTAssertEqual(ByteWords.first(flags), position, "\(position) \(after)")
            }
        }
        XCTAssertEqual(ByteWords.equal(ByteWords.pad, 0x22), 0)
    }

    /// A short word holds the bytes in order, the rest the pad letter.
    func testAShortWordIsItsBytesThenThePad() {
        for n in 0..<8 {
            let bytes = (0..<n).map { UInt8(0xF0 + $0) }
            let word = exact(bytes) { ByteWords.short($0, $1) }
            for k in 0..<8 {
                XCTAssertEqual(UInt8(truncatingIfNeeded: word >> UInt64(8 * k)), k < n ? bytes[k] : 0x61, "\(n) \(k)")
            }
        }
    }
}
