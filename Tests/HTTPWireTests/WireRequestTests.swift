@testable import HTTPWire
import XCTest

/// The bytes a request goes out as: Host from the URL and Content-Length from the body unless the caller gives its
/// own (a target API mapping may), never both.
final class WireRequestTests: XCTestCase {
    private func text(_ request: WireRequest) -> String { String(decoding: request.bytes, as: UTF8.self) }

    func testHostAndContentLengthAreWrittenWhenTheCallerGivesNone() throws {
        let request = try WireRequest(method: "POST", url: "http://127.0.0.1:8080/calls?x=1",
                                      headers: [("content-type", "application/json")], body: Array("{}".utf8))
        XCTAssertEqual(text(request), "POST /calls?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                       + "content-type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    }

    func testTheCallersHostAndContentLengthReplaceTheClientsOwnInAnyCase() throws {
        let request = try WireRequest(method: "PUT", url: "http://127.0.0.1:8080/c",
                                      headers: [("HOST", "calls.example"), ("content-LENGTH", "3")],
                                      body: Array("abc".utf8))
        XCTAssertEqual(text(request), "PUT /c HTTP/1.1\r\nHOST: calls.example\r\ncontent-LENGTH: 3\r\n\r\nabc")
    }

    func testHeaderNamesCompareWithoutCaseAndWithoutPrefixes() {
        XCTAssertTrue(WireRequest.named("Content-Length", "content-length"))
        XCTAssertFalse(WireRequest.named("Content-Lengths", "content-length"))
        XCTAssertFalse(WireRequest.named("Hos", "host"))
        XCTAssertFalse(WireRequest.named("X-Host", "host"))
    }
}
