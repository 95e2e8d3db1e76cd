import OTLP
import XCTest

/// The wire format's building blocks against the protobuf encoding guide's own examples.
final class ProtoWriterTests: XCTestCase {
    func testVarintsAndZigzagMatchTheEncodingGuide() {
        var w = ProtoWriter()
        w.uint64(1, 150)
        XCTAssertEqual(w.bytes, [0x08, 0x96, 0x01])
        var z = ProtoWriter()
        z.sint(1, -1)
        z.sint(2, 1)
        z.sint(3, -2)
        XCTAssertEqual(z.bytes, [0x08, 0x01, 0x10, 0x02, 0x18, 0x03])
        var n = ProtoWriter()
        n.int64(1, -1)
        XCTAssertEqual(n.bytes, [0x08] + Array(repeating: 0xff, count: 9) + [0x01])
    }

    func testDefaultsAreLeftOutAndPresentFieldsAreNot() {
        var w = ProtoWriter()
        w.uint64(1, 0)
        w.string(2, "")
        w.fixed64(3, 0)
        w.bool(4, false)
        w.double(5, 0)
        XCTAssertEqual(w.bytes, [])
        w.presentDouble(5, 0)
        w.message(6) { _ in }
        XCTAssertEqual(w.bytes, [0x29, 0, 0, 0, 0, 0, 0, 0, 0, 0x32, 0x00])
    }

    func testStringsAndPackedFieldsAreLengthDelimited() {
        var w = ProtoWriter()
        w.string(2, "testing")
        XCTAssertEqual(w.bytes, [0x12, 0x07] + Array("testing".utf8))
        var p = ProtoWriter()
        p.packedUInt64(4, [3, 270, 86942])
        XCTAssertEqual(p.bytes, [0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05])
    }

    func testTheReaderReadsBackWhatTheWriterWroteAndRejectsTruncation() throws {
        var w = ProtoWriter()
        w.uint64(1, 300)
        w.string(2, "hi")
        w.fixed64(3, 7)
        w.fixed32(4, 9)
        var r = ProtoReader(w.bytes)
        var fields: [Int: ProtoReader.Value] = [:]
        while let (field, value) = try r.next() { fields[field] = value }
        XCTAssertEqual(fields[1], .varint(300))
        XCTAssertEqual(fields[2], .bytes(Array("hi".utf8)[...]))
        XCTAssertEqual(fields[3], .fixed64(7))
        XCTAssertEqual(fields[4], .fixed32(9))
        var cut = ProtoReader(Array(w.bytes.dropLast(2)))
        XCTAssertThrowsError(try { while try cut.next() != nil {} }())
    }
}
