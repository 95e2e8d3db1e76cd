import XCTest
@testable import Checker

/// `HistoryIds` hands out one `String` per id (issue 33): every id must come back as exactly its own text, through
/// the table's growth and whatever its hash puts in the same slot.
final class HistoryIdsTests: XCTestCase {
    private func string(_ ids: inout HistoryIds, _ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { ids.string($0) }
    }

    func testEveryIdComesBackAsItsOwnTextThroughGrowth() {
        var ids = HistoryIds()
        // Long ids (Call-IDs), short ones (device names), and ids that differ only in their last byte or length.
        let texts = (0..<3_000).map { "\($0 % 7)q\($0)x@127.0.0.1" } + ["dev-1", "dev-12", "INVITE", "",
            "0123456789abcdef", "0123456789abcdeg", "0123456789abcdef0", String(repeating: "é", count: 20)]
        for round in 0..<2 {
            for text in texts {
                XCTAssertEqual(string(&ids, text), text, "round \(round)")
            }
        }
    }

    func testALongIdIsOneStringSharedByEveryLineThatNamesIt() throws {
        let id = "71qy3usyd6@127.0.0.1"
        let text = (0..<3).map { #"{"t":\#($0),"type":"sip","device":"dev-1","conversation":"\#(id)","sent":true,"#
            + #""message":"INVITE"}"# }.joined(separator: "\n")
        let events = try HistoryReader.parse(lines: text.split(separator: "\n"))
        let read: [String] = events.compactMap {
            if case .sip(let line) = $0.body { return line.conversation }
            return nil
        }
        XCTAssertEqual(read, [id, id, id])
        // The same storage: equal ids compare without reading their bytes.
        let storage = read.map { $0.utf8.withContiguousStorageIfAvailable { $0.baseAddress } }
        XCTAssertNotNil(storage[0] ?? nil)
        XCTAssertEqual(Set(storage.map { $0 ?? nil }).count, 1)
    }

    func testAnEscapedIdReadsAsItsDecodedText() throws {
        let line = #"{"t":1,"type":"sip","device":"dev-1","conversation":"a\"b@127.0.0.1-long-id","sent":true,"#
            + #""message":"BYE"}"#
        let events = try HistoryReader.parse(lines: [line[...], line[...]])
        for event in events {
            guard case .sip(let sip) = event.body else { return XCTFail("not a sip line") }
            XCTAssertEqual(sip.conversation, "a\"b@127.0.0.1-long-id")
        }
    }
}
