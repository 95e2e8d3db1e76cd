import SIP
import XCTest

/// `SIPStringCache`: a parse with the cache reads every field as a parse without it, whatever the cache holds.
final class StringCacheTests: XCTestCase {
    private static func datagram(callID: String, branch: String) -> [UInt8] {
        Array(("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5080;branch=\(branch)\r\n"
            + "From: <sip:a@h>;tag=1\r\nTo: <sip:b@h>;tag=2\r\nCall-ID: \(callID)\r\nCSeq: 1 INVITE\r\n"
            + "Content-Length: 0\r\n\r\n").utf8)
    }

    func testAParseWithTheCacheReadsTheSameFieldsAsOneWithout() throws {
        let strings = SIPStringCache()
        strings.note("z9hG4bKnoted0123456789")
        strings.note("noted-call-id-0123456789@127.0.0.1")
        let cases = [("noted-call-id-0123456789@127.0.0.1", "z9hG4bKnoted0123456789"),
                     ("noted-call-id-0123456789@127.0.0.2", "z9hG4bKnoted0123456788"),  // same length, not noted
                     ("short@h", "z9hG4bKs"), ("noted-call-id-0123456789@127.0.0.1", "z9hG4bKnoted0123456789")]
        for (callID, branch) in cases {
            let bytes = Self.datagram(callID: callID, branch: branch)
            let cached = try bytes.withUnsafeBufferPointer { try SIPParser.parse(datagram: $0, strings: strings) }
            let plain = try SIPParser.parse(datagram: bytes)
            XCTAssertEqual(cached.callID, callID)
            XCTAssertEqual(cached.branch, branch)
            XCTAssertEqual(cached.callID, plain.callID)
            XCTAssertEqual(cached.branch, plain.branch)
        }
    }

    func testARequestURIReadThroughTheCacheIsTheURIOfEachRequest() throws {
        let strings = SIPStringCache()
        for uri in ["sip:bob@127.0.0.1:5072;transport=udp", "sip:bob@127.0.0.1:5072;transport=udp",
                    "sip:bob@127.0.0.1:5073;transport=udp", "sip:b@h"] {
            let text = "OPTIONS \(uri) SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\nFrom: <sip:a@h>;tag=1\r\n"
                + "To: <sip:b@h>\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\n\r\n"
            let message = try Array(text.utf8).withUnsafeBufferPointer {
                try SIPParser.parse(datagram: $0, strings: strings)
            }
            XCTAssertEqual(message.requestURI, uri)
        }
    }

    func testBytesThatAreNotUTF8AreReadAsWithoutTheCache() throws {
        let strings = SIPStringCache()
        var bytes = Self.datagram(callID: "call-id-with-a-bad-byte-X@127.0.0.1", branch: "z9hG4bKbranch0123456789")
        let bad = bytes.firstIndex(of: UInt8(ascii: "X"))!
        bytes[bad] = 0xFF
        let plain = try SIPParser.parse(datagram: bytes)
        // The repaired string is cached; the same bad bytes again must not be told apart from a parse without it.
        for _ in 0..<2 {
            let cached = try bytes.withUnsafeBufferPointer { try SIPParser.parse(datagram: $0, strings: strings) }
            XCTAssertEqual(cached.callID, plain.callID)
            XCTAssertEqual(cached.branch, "z9hG4bKbranch0123456789")
        }
    }
}
