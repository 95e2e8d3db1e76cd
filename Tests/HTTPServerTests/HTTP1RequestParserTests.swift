import Determinism
@testable import HTTPServer
import XCTest

final class HTTP1RequestParserTests: XCTestCase {
    /// What a sequence of parser events looked like, in a form tests can compare.
    private enum Outcome: Equatable {
        case request(method: String, target: String, body: String, keepAlive: Bool)
        case expectContinue
        case failure(Int)
    }

    /// Feeds `input` in pieces of `pieceSize` bytes, keeping unconsumed bytes as the connection does, and
    /// collects every event until the input runs out or the parser fails.
    private func parse(_ input: String, pieceSize: Int = Int.max, maxHeaderBytes: Int = 4096, maxBodyBytes: Int = 4096) -> [Outcome] {
        var parser = HTTP1RequestParser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        let bytes = Array(input.utf8)
        var buffer: [UInt8] = []
        var outcomes: [Outcome] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + max(1, min(pieceSize, bytes.count)))
            buffer.append(contentsOf: bytes[offset..<end])
            offset = end
            var index = 0
            var failed = false
            buffer.withUnsafeBufferPointer { pointer in
                loop: while true {
                    switch parser.next(pointer, &index) {
                    case .needMore:
                        break loop
                    case .expectContinue:
                        outcomes.append(.expectContinue)
                    case .request(let request):
                        outcomes.append(.request(
                            method: request.method, target: request.target,
                            body: String(decoding: request.body, as: UTF8.self), keepAlive: request.keepAlive))
                    case .failure(let error):
                        outcomes.append(.failure(error.status))
                        failed = true
                        break loop
                    }
                }
            }
            buffer.removeFirst(index)
            if failed { break }
        }
        return outcomes
    }

    func testRequestSplitAtEveryByteParsesTheSame() {
        let input = "POST /a?b=c HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            + "GET /two HTTP/1.1\r\nConnection: close\r\n\r\n"
            + "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let expected: [Outcome] = [
            .request(method: "POST", target: "/a?b=c", body: "hello", keepAlive: true),
            .request(method: "GET", target: "/two", body: "", keepAlive: false),
            .request(method: "PUT", target: "/c", body: "abc", keepAlive: true),
        ]
        for size in [1, 2, 3, 7, 16, 1000] {
            XCTAssertEqual(parse(input, pieceSize: size), expected, "piece size \(size)")
        }
    }

    func testHeaderNamesAreLowercasedAndValuesTrimmed() throws {
        var parser = HTTP1RequestParser(maxHeaderBytes: 4096, maxBodyBytes: 0)
        let bytes = Array("GET / HTTP/1.1\r\nX-Mixed-Case: \t spaced value \t\r\nA: 1\r\na: 2\r\n\r\n".utf8)
        var index = 0
        let event = bytes.withUnsafeBufferPointer { parser.next($0, &index) }
        guard case .request(let request) = event else { return XCTFail("\(event)") }
        XCTAssertEqual(request.headers, [
            HTTPHeader("x-mixed-case", "spaced value"), HTTPHeader("a", "1"), HTTPHeader("a", "2"),
        ])
        XCTAssertEqual(index, bytes.count)
    }

    /// A header line the connection sent before reuses that parse's field only when its bytes are the same
    /// (HTTP1LineCache): each request reads as if parsed alone.
    func testTheNextRequestsHeadersReadAsIfParsedAlone() throws {
        var parser = HTTP1RequestParser(maxHeaderBytes: 4096, maxBodyBytes: 0)
        let heads = ["GET / HTTP/1.1\r\nHost: a\r\nX-Id: 1\r\nV: \u{e9}\r\n\r\n",
                     "GET / HTTP/1.1\r\nHOST: a\r\nX-Id: 12\r\nV: \u{e9}\r\nMore: m\r\n\r\n",
                     "GET / HTTP/1.1\r\nhost: b\r\n\r\n"]
        var seen: [[HTTPHeader]] = []
        for head in heads + [heads[0]] {
            let bytes = Array(head.utf8)
            var index = 0
            let event = bytes.withUnsafeBufferPointer { parser.next($0, &index) }
            guard case .request(let request) = event else { return XCTFail("\(event)") }
            seen.append(request.headers)
        }
        XCTAssertEqual(seen, [
            [HTTPHeader("host", "a"), HTTPHeader("x-id", "1"), HTTPHeader("v", "\u{e9}")],
            [HTTPHeader("host", "a"), HTTPHeader("x-id", "12"), HTTPHeader("v", "\u{e9}"), HTTPHeader("more", "m")],
            [HTTPHeader("host", "b")],
            [HTTPHeader("host", "a"), HTTPHeader("x-id", "1"), HTTPHeader("v", "\u{e9}")],
        ])
        // Invalid UTF-8 is repaired every time, never matched against the repaired String.
        for _ in 0..<2 {
            let bytes = Array("GET / HTTP/1.1\r\nV: ".utf8) + [0xFF] + Array("\r\n\r\n".utf8)
            var index = 0
            let event = bytes.withUnsafeBufferPointer { parser.next($0, &index) }
            guard case .request(let request) = event else { return XCTFail("\(event)") }
            XCTAssertEqual(request.headers, [HTTPHeader("v", "\u{FFFD}")])
        }
    }

    func testBareLineFeedsAndLeadingEmptyLinesAreAccepted() {
        XCTAssertEqual(parse("\r\n\nGET / HTTP/1.1\nHost: x\n\n"), [
            .request(method: "GET", target: "/", body: "", keepAlive: true),
        ])
    }

    func testExpectContinueIsReportedBeforeTheBody() {
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok"), [
            .expectContinue, .request(method: "POST", target: "/", body: "ok", keepAlive: true),
        ])
        // HTTP/1.0 has no interim responses, and a request without a body has nothing to wait for.
        XCTAssertEqual(parse("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok"), [
            .request(method: "POST", target: "/", body: "ok", keepAlive: false),
        ])
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n"), [
            .request(method: "GET", target: "/", body: "", keepAlive: true),
        ])
    }

    func testConnectionOptionsDecideKeepAlive() {
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nConnection: Keep-Alive, CLOSE\r\n\r\n").first,
                       .request(method: "GET", target: "/", body: "", keepAlive: false))
        XCTAssertEqual(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").first,
                       .request(method: "GET", target: "/", body: "", keepAlive: true))
    }

    func testLimitsGiveTheirStatuses() {
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 5000) + "\r\n\r\n"), [.failure(431)])
        XCTAssertEqual(parse("GET /" + String(repeating: "a", count: 5000), pieceSize: 100), [.failure(431)])
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nContent-Length: 4097\r\n\r\n"), [.failure(413)])
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"), [.failure(413)])
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n"), [.failure(413)])
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1001\r\n"), [.failure(413)])
    }

    func testMalformedFramingIsRejected() {
        let cases: [(String, Int)] = [
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX", 400),
            ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n: empty name\r\n\r\n", 400),
            ("GET  / HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1 \r\n\r\n", 400),
            ("GET / HTTP/3.0\r\n\r\n", 505),
            ("GET /\u{01} HTTP/1.1\r\n\r\n", 400),
        ]
        for (input, status) in cases {
            XCTAssertEqual(parse(input), [.failure(status)], input)
        }
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc"), [
            .request(method: "POST", target: "/", body: "abc", keepAlive: true),
        ])
    }

    func testFailureIsSticky() {
        var parser = HTTP1RequestParser(maxHeaderBytes: 4096, maxBodyBytes: 0)
        let bad = Array("NOPE\r\n".utf8)
        let good = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        var index = 0
        _ = bad.withUnsafeBufferPointer { parser.next($0, &index) }
        index = 0
        let event = good.withUnsafeBufferPointer { parser.next($0, &index) }
        guard case .failure = event else { return XCTFail("\(event)") }
    }

    func testRandomInputNeverTraps() {
        var random = SeededRandom(splitMix: 42)
        let alphabet = Array("GET /HTTP1.0\r\n:;, chunkedContent-Length0123456789abcdefTransfer-Encoding".utf8)
        for _ in 0..<2000 {
            let length = Int(random.next() % 300)
            let bytes = (0..<length).map { _ in
                let r = random.next()
                return r % 3 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : alphabet[Int((r >> 8) % UInt64(alphabet.count))]
            }
            _ = parse(String(decoding: bytes, as: UTF8.self), pieceSize: Int(random.next() % 20) + 1, maxHeaderBytes: 256)
        }
    }
}
