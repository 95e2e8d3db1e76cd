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

    /// The request target is copied from the URL's bytes with blanks and line ends left out, `/` put before a bare
    /// query or an empty path; the Host line names the origin, its port only when not the scheme's default.
    func testTheTargetAndTheHostLineComeFromTheURL() throws {
        let cases = [
            ("https://[::1]/a b?c\r#frag", "GET /ab?c HTTP/1.1\r\nHost: [::1]\r\n\r\n"),
            ("http://h:8080?x", "GET /?x HTTP/1.1\r\nHost: h:8080\r\n\r\n"),
            ("http://h:80/p", "GET /p HTTP/1.1\r\nHost: h\r\n\r\n"),
            ("https://calls.example:80", "GET / HTTP/1.1\r\nHost: calls.example:80\r\n\r\n"),
            ("http://[fe80::1]:65535/x", "GET /x HTTP/1.1\r\nHost: [fe80::1]:65535\r\n\r\n"),
        ]
        for (url, expected) in cases { XCTAssertEqual(text(try WireRequest(method: "GET", url: url)), expected, url) }
        XCTAssertEqual(WireOrigin(secure: true, host: "h", port: 8443).hostHeader, "h:8443")
        XCTAssertEqual(WireOrigin(secure: true, host: "h", port: 443).hostHeader, "h")
    }

    /// A bad URL is named before a bad method, as when the URL was read first.
    func testABadURLIsReportedBeforeABadMethod() {
        XCTAssertThrowsError(try WireRequest(method: "G T", url: "ftp://h/")) { error in
            guard case WireError.badURL = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try WireRequest(method: "G T", url: "http://h/")) { error in
            guard case WireError.badHeader = error else { return XCTFail("\(error)") }
        }
    }

    func testHeaderNamesCompareWithoutCaseAndWithoutPrefixes() {
        XCTAssertTrue(WireRequest.named("Content-Length", "content-length"))
        XCTAssertFalse(WireRequest.named("Content-Lengths", "content-length"))
        XCTAssertFalse(WireRequest.named("Hos", "host"))
        XCTAssertFalse(WireRequest.named("X-Host", "host"))
    }

    /// A head made once and reused (`WireSender` keeps them) writes what building from the headers writes, for any
    /// URL of the origin, method and body.
    func testAHeadMadeOnceWritesTheSameBytesAsTheHeaders() throws {
        let headers = [("content-type", "application/json"), ("Accept", "*/*")]
        let origin = WireOrigin(secure: false, host: "127.0.0.1", port: 8080)
        let head = try WireRequest.Head(origin: origin, headers: headers)
        let sends: [(String, String, [UInt8]?)] = [
            ("POST", "/v1/a", Array("{\"x\":1}".utf8)), ("GET", "/v1/b?c=1", nil), ("PUT", "/v1/c", nil),
            ("DELETE", "/", Array("é".utf8)),
        ]
        for (method, path, body) in sends {
            let url = "http://127.0.0.1:8080" + path
            let built = try WireRequest(method: method, url: url, headers: headers, body: body)
            let reused = try WireRequest(method: method, url: url, body: body, timeoutMillis: 10_000) { _ in head }
            XCTAssertEqual(text(reused), text(built), method)
        }
        XCTAssertThrowsError(try WireRequest.Head(origin: origin, headers: [("bad name", "v")]))
        XCTAssertThrowsError(try WireRequest.Head(origin: origin, headers: [("x", "a\r\nb")]))
    }

    /// A URL's origin taken from the last one's (`WireOrigin.Known`) when it starts with the same
    /// `scheme://authority`: the same bytes and origin as a URL parsed alone, whichever URL came before, and a
    /// bad URL still refused.
    func testAKnownOriginGivesTheBytesOfAURLParsedAlone() throws {
        let urls = [
            "http://127.0.0.1:8080/v1/a", "http://127.0.0.1:8080/v1/b?c=1#f", "http://127.0.0.1:8080",
            "http://127.0.0.1:8080?q", "http://127.0.0.1:8080#f", "http://127.0.0.1:80801/x", "http://127.0.0.1:8080a/x",
            "http://127.0.0.1:808/x", "https://127.0.0.1:8080/v1/a", "http://127.0.0.1/a b", "http://[::1]:9/x",
            "http://[::1]:9", "http://u@127.0.0.1:8080/x", "http://127.0.0.1:8080/x",
        ]
        var known: WireOrigin.Known?
        for before in urls {
            for url in urls {
                known = nil
                _ = try? WireRequest(method: "GET", url: before, body: nil, timeoutMillis: 1, known: &known) { origin throws(WireError) in
                    try WireRequest.Head(origin: origin, headers: [])
                }
                let alone = Result { try WireRequest(method: "GET", url: url) }
                let reused = Result {
                    try WireRequest(method: "GET", url: url, body: nil, timeoutMillis: 1, known: &known) { origin throws(WireError) in
                        try WireRequest.Head(origin: origin, headers: [])
                    }
                }
                switch (alone, reused) {
                case (.success(let a), .success(let b)):
                    XCTAssertEqual(text(b), text(a), "\(before) then \(url)")
                    XCTAssertEqual(b.origin, a.origin, "\(before) then \(url)")
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual("\(b)", "\(a)", "\(before) then \(url)")
                default: XCTFail("\(before) then \(url): \(alone) against \(reused)")
                }
            }
        }
    }
}
