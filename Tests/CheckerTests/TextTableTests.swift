import XCTest
@testable import Checker

/// `TextTable` hands out one `String` per distinct text; what it hands out must be what `String(decoding:as:)`
/// makes of the same bytes, whatever the table held before.
final class TextTableTests: XCTestCase {
    private func read(_ table: inout TextTable, _ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { table.string($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: $0.count) }
    }

    func testEachTextReadsAsStringDecodingMakesItAgainAndAgain() {
        var table = TextTable()
        let texts: [[UInt8]] = [
            Array("1l5e9jnjj46@127.0.0.1".utf8), Array("dev-0".utf8), Array("dev-00".utf8), [],
            Array("caf\u{E9}".utf8), [0x66, 0xFF, 0xC3], Array("12345678".utf8), Array("123456781".utf8),
            Array(repeating: UInt8(ascii: "x"), count: TextTable.longest + 1),
        ]
        for _ in 0..<3 {
            for bytes in texts {
                XCTAssertEqual(read(&table, bytes), String(decoding: bytes, as: UTF8.self), "\(bytes)")
            }
        }
    }

    func testTextsBeyondTheLimitStillReadTheSame() {
        var table = TextTable()
        for n in 0..<(TextTable.limit + 3_000) {
            let bytes = Array("call-\(n)@host".utf8)
            XCTAssertEqual(read(&table, bytes), "call-\(n)@host")
        }
        for n in [0, 1, TextTable.limit - 1, TextTable.limit + 2_999] {
            XCTAssertEqual(read(&table, Array("call-\(n)@host".utf8)), "call-\(n)@host")
        }
    }

    func testTextsThatDifferInOneByteOrInLengthAreDifferentTexts() {
        var table = TextTable()
        XCTAssertEqual(read(&table, Array("abcdefgh-1".utf8)), "abcdefgh-1")
        XCTAssertEqual(read(&table, Array("abcdefgh-2".utf8)), "abcdefgh-2")
        XCTAssertEqual(read(&table, Array("abcdefgh-1\u{0}".utf8)), "abcdefgh-1\u{0}")
        XCTAssertEqual(read(&table, Array("abcdefgh".utf8)), "abcdefgh")
    }
}
