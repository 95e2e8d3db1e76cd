import CLibnghttp2
@testable import HTTPServer
import XCTest

/// The HTTP/2 connection's per-field shortcuts: reused request field Strings and the laid-out response block.
final class HTTP2FieldsTests: XCTestCase {
    private func string(_ strings: HTTP2FieldStrings, _ bytes: [UInt8], slot: Int) -> String {
        bytes.withUnsafeBufferPointer { strings.string($0, slot: slot) }
    }

    func testFieldStringsAreReusedOnlyForTheSameBytes() {
        let strings = HTTP2FieldStrings()
        let long = Array("com.example.callstorm.voip".utf8)
        XCTAssertEqual(string(strings, long, slot: 1), "com.example.callstorm.voip")
        XCTAssertEqual(string(strings, long, slot: 1), "com.example.callstorm.voip")
        XCTAssertEqual(string(strings, Array("com.example.other".utf8), slot: 1), "com.example.other")
        XCTAssertEqual(string(strings, [], slot: 1), "")
        XCTAssertEqual(string(strings, Array("x".utf8), slot: HTTP2FieldStrings.slots), "x", "past the slots")
    }

    func testInvalidUTF8IsRepairedEveryTimeNeverMatchedToTheRepairedString() {
        let strings = HTTP2FieldStrings()
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        let first = string(strings, invalid, slot: 0)
        XCTAssertEqual(first, String(decoding: invalid, as: UTF8.self))
        XCTAssertEqual(string(strings, Array(first.utf8), slot: 0), first)
        XCTAssertEqual(string(strings, invalid, slot: 0), first)
    }

    private func fields(_ response: HTTPResponse, status: Int = 200) -> [String] {
        var layout = HTTP2ResponseFields()
        return layout.withVectors(status: status, response: response) { nva, count in
            (0..<count).map { i in
                let field = nva[i]
                let name = String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self)
                let value = String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen),
                                   as: UTF8.self)
                return name + ": " + value
            }
        }
    }

    func testResponseBlockKeepsOrderLowercasesNamesAndDropsFramingFields() {
        let response = HTTPResponse(status: 200, headers: [
            HTTPHeader("APNs-ID", "id-1"), HTTPHeader("Content-Length", "99"), HTTPHeader("connection", "close"),
            HTTPHeader(":status", "500"), HTTPHeader("", "x"), HTTPHeader("x-note", "a\r\nb\0c"),
        ], body: Array("hello".utf8))
        XCTAssertEqual(fields(response, status: 404), [":status: 404", "apns-id: id-1", "x-note: abc",
                                                       "server: callstorm", "content-length: 5"])
    }

    func testAHandlersServerHeaderReplacesTheDefault() {
        let response = HTTPResponse(status: 503, headers: [HTTPHeader("Server", "apns")])
        XCTAssertEqual(fields(response, status: 503), [":status: 503", "server: apns", "content-length: 0"])
    }

    func testMessageIDsAreSentWithoutIndexingAndOtherFieldsIndexed() {
        let response = HTTPResponse(status: 200, headers: [
            HTTPHeader("apns-id", "a"), HTTPHeader("APNs-Unique-ID", "b"), HTTPHeader("content-type", "application/json"),
        ])
        var layout = HTTP2ResponseFields()
        let flags = layout.withVectors(status: 200, response: response) { nva, count in
            (0..<count).map { nva[$0].flags }
        }
        let noIndex = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        let none = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        XCTAssertEqual(flags, [none, noIndex, noIndex, none, none, none])
    }
}
