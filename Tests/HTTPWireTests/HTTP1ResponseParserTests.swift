@testable import HTTPWire
import XCTest

final class HTTP1ResponseParserTests: XCTestCase {
    /// Feeds `text` in pieces of `piece` bytes; the response once complete, or the error.
    private func parse(_ text: String, piece: Int = .max, head: Bool = false,
                       limits: HTTP1ResponseParser.Limits = .init()) -> Result<(WireResponse, HTTP1ResponseParser),
                                                                              WireResponseError> {
        var parser = HTTP1ResponseParser(limits: limits)
        parser.reset(head: head)
        let bytes = Array(text.utf8)
        var at = 0
        do {
            while at < bytes.count {
                let end = min(bytes.count, at + piece)
                let done = try bytes[at..<end].withUnsafeBytes { try parser.feed($0) }
                at = end
                if done { return .success((parser.takeResponse(), parser)) }
            }
            if try parser.finishAtEndOfStream() { return .success((parser.takeResponse(), parser)) }
        } catch {
            return .failure(error as? WireResponseError ?? .truncated("not a parser error: \(error)"))
        }
        return .failure(.truncated("test: no response"))
    }

    private func response(_ text: String, piece: Int = .max, head: Bool = false) throws -> (WireResponse, Bool) {
        let (response, parser) = try parse(text, piece: piece, head: head).get()
        return (response, parser.keepAlive)
    }

    func testContentLengthBodyAndHeadersInEveryPieceSize() throws {
        let text = "HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-Id: a b \r\n\r\nhello"
        for piece in 1...text.utf8.count {
            let (r, keepAlive) = try response(text, piece: piece)
            XCTAssertEqual(r.status, 201, "piece \(piece)")
            XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "hello", "piece \(piece)")
            XCTAssertEqual(r.header("x-id"), "a b", "piece \(piece)")
            XCTAssertTrue(keepAlive)
        }
    }

    func testChunkedBodyWithExtensionsAndTrailersInEveryPieceSize() throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=x\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n"
        for piece in 1...text.utf8.count {
            let (r, keepAlive) = try response(text, piece: piece)
            XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "hello 0123456789", "piece \(piece)")
            XCTAssertTrue(keepAlive)
        }
    }

    func testInterimResponsesAreSkippedAndBareLineFeedsAccepted() throws {
        let (r, _) = try response("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\nContent-Length: 2\n\nok")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Array("ok".utf8))
    }

    func testBodilessResponses() throws {
        XCTAssertEqual(try response("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", head: true).0.body, [])
        XCTAssertEqual(try response("HTTP/1.1 204 No Content\r\n\r\n").0.status, 204)
        XCTAssertEqual(try response("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n").0.status, 304)
    }

    func testReuseFollowsVersionAndConnectionHeaderAndFraming() throws {
        XCTAssertFalse(try response("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").1)
        XCTAssertTrue(try response("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n").1)
        XCTAssertFalse(try response("HTTP/1.1 200 OK\r\nConnection: x, close\r\nContent-Length: 0\r\n\r\n").1)
        // No length: the body runs to the connection's end, which also ends the connection.
        let (r, keepAlive) = try response("HTTP/1.1 200 OK\r\n\r\nuntil the end")
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "until the end")
        XCTAssertFalse(keepAlive)
        let both = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        XCTAssertFalse(try response(both).1, "Content-Length and Transfer-Encoding together: no reuse")
    }

    /// List elements lose their optional whitespace, tabs included (RFC 9110 §5.6.3): `gzip,<tab>chunked` is
    /// chunked, `keep-alive<tab>, close` closes.
    func testListElementsAreReadWithoutSpacesOrTabsAroundThem() throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\tchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let (r, keepAlive) = try response(chunked)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "abc", "read as chunked, not to the end")
        XCTAssertTrue(keepAlive)
        let closing = "HTTP/1.1 200 OK\r\nConnection: keep-alive\t, close\r\nContent-Length: 0\r\n\r\n"
        XCTAssertFalse(try response(closing).1)
    }

    func testExcessBytesAfterTheResponseAreCounted() throws {
        let (_, parser) = try parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP").get()
        XCTAssertEqual(parser.excessBytes, 4)
    }

    func testMalformedResponsesNameTheirPart() {
        let cases: [(String, WireResponseError)] = [
            ("HTTP/2 200 OK\r\n\r\n", .statusLine("HTTP/2 200 OK")),
            ("HTTP/1.1 2x0 OK\r\n\r\n", .statusLine("HTTP/1.1 2x0 OK")),
            ("HTTP/1.1 200 OK\r\nContent Length: 5\r\n\r\n",
             .headerLine("Content Length: 5", reason: "whitespace before the colon")),
            ("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n",
             .headerLine(" folded", reason: "obsolete line folding (RFC 9112 §5.2)")),
            ("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", .headerLine("NoColon", reason: "no colon")),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n", .contentLength("5x")),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
             .contentLength("5 and 6 in two headers")),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .chunkSize("zz")),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", .chunkTerminator),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
             .truncated("5 bytes of a Content-Length body missing")),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .truncated("in a chunked body")),
            ("HTTP/1.1 200", .truncated("in the status line or headers")),
        ]
        for (text, expected) in cases {
            for piece in [1, 7, Int.max] {
                guard case .failure(let error) = parse(text, piece: piece) else {
                    XCTFail("\(text.debugDescription) parsed (piece \(piece))")
                    continue
                }
                XCTAssertEqual(error, expected, "\(text.debugDescription) piece \(piece)")
            }
        }
    }

    func testLimitsOnHeadAndBody() {
        var limits = HTTP1ResponseParser.Limits()
        limits.maxHeadBytes = 64
        limits.maxBodyBytes = 4
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 100)
        XCTAssertEqual(parse(long, limits: limits).failure, .headTooLarge(limit: 64))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", limits: limits).failure,
                       .bodyTooLarge(limit: 4))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n", limits: limits).failure,
                       .bodyTooLarge(limit: 4))
    }

    func testAConnectionClosedBeforeAnyByteIsNotAResponse() throws {
        var parser = HTTP1ResponseParser()
        XCTAssertFalse(try parser.finishAtEndOfStream())
        XCTAssertFalse(parser.receivedAny)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
