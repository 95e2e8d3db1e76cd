@testable import HTTPServer
import XCTest

final class HTTP1ResponseEncoderTests: XCTestCase {
    private func encode(_ response: HTTPResponse, close: Bool = false, head: Bool = false) -> String {
        var buffer: [UInt8] = []
        HTTP1ResponseEncoder.append(
            response, framing: .init(close: close, echoKeepAlive: false, omitBody: head), to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    func testServerOwnsFramingHeaders() {
        let response = HTTPResponse(status: 200, headers: [
            HTTPHeader("Content-Length", "999"), HTTPHeader("Transfer-Encoding", "chunked"),
            HTTPHeader("connection", "keep-alive"), HTTPHeader("apns-id", "x"),
        ], body: Array("abc".utf8))
        XCTAssertEqual(encode(response, close: true),
                       "HTTP/1.1 200 OK\r\napns-id: x\r\nServer: callstorm\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc")
    }

    func testHeaderValuesCannotInjectLines() {
        let response = HTTPResponse.empty(404, headers: [HTTPHeader("x", "a\r\nInjected: yes")])
        XCTAssertEqual(encode(response), "HTTP/1.1 404 Not Found\r\nx: aInjected: yes\r\nServer: callstorm\r\nContent-Length: 0\r\n\r\n")
    }

    func testNoContentAndHeadAndOddStatuses() {
        XCTAssertEqual(encode(.empty(204)), "HTTP/1.1 204 No Content\r\nServer: callstorm\r\n\r\n")
        XCTAssertEqual(encode(.text(200, "hi", headers: [HTTPHeader("Server", "other")]), head: true),
                       "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\nServer: other\r\nContent-Length: 2\r\n\r\n")
        XCTAssertTrue(encode(.empty(100)).hasPrefix("HTTP/1.1 500 "))
        XCTAssertTrue(encode(.empty(299)).hasPrefix("HTTP/1.1 299 Status\r\n"))
    }

    func testDecimalDigits() {
        for value in [0, 7, 10, 99, 100, 65535, 1_048_576, Int.max] {
            var buffer: [UInt8] = []
            HTTP1ResponseEncoder.appendDecimal(value, to: &buffer)
            XCTAssertEqual(String(decoding: buffer, as: UTF8.self), String(value))
        }
    }
}
