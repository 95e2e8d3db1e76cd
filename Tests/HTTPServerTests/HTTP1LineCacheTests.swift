import Determinism
@testable import HTTPServer
import XCTest

/// The parser's cache of header lines a connection sent before (HTTP1LineCache): a request read through it reads
/// exactly as the same bytes read by a fresh parser, and the cache stays bounded.
final class HTTP1LineCacheTests: XCTestCase {
    /// What one parse of a whole request gave: its fields and framing, or the failure's status.
    private struct Read: Equatable {
        var headers: [HTTPHeader] = []
        var body: [UInt8] = []
        var keepAlive = false
        var failure: Int?
    }

    private func read(_ bytes: [UInt8], with parser: inout HTTP1RequestParser) -> Read {
        var index = 0
        var read = Read()
        while true {
            let event = bytes.withUnsafeBufferPointer { parser.next($0, &index) }
            switch event {
            case .request(let request):
                read.headers = request.headers
                read.body = request.body
                read.keepAlive = request.keepAlive
                return read
            case .failure(let error):
                read.failure = error.status
                return read
            case .expectContinue:
                continue
            case .needMore:
                read.failure = 0
                return read
            }
        }
    }

    private func alone(_ bytes: [UInt8]) -> Read {
        var parser = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 4096)
        return read(bytes, with: &parser)
    }

    /// A push provider's requests: the lines that repeat are found again, the framing lines (a new
    /// Content-Length, Connection, Expect) are read on every request, and a line that differs from a kept one
    /// by a byte, a letter's case or a blank reads as its own bytes say.
    func testRequestsOnOneConnectionReadAsEachAlone() {
        let auth = "authorization: bearer " + String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 9)
        let heads: [[String]] = [
            ["Host: 127.0.0.1:9", "Accept: */*", auth, "apns-push-type: voip", "Content-Length: 2"],
            ["Host: 127.0.0.1:9", "Accept: */*", auth, "apns-push-type: background", "Content-Length: 3"],
            ["host: 127.0.0.1:9", "Accept:  */*", auth + "x", "apns-push-type: voip", "Content-Length: 2"],
            ["Host: 127.0.0.1:9", "Accept: */*", auth, "Connection: close", "Content-Length: 2"],
            ["Host: 127.0.0.1:9", "Expect: 100-continue", "Content-Length: 2", "apns-push-type: voip"],
            ["Host: 127.0.0.1:9", "Host: 127.0.0.1:9", "Accept: */*\t", "Content-Length: 3"],
            ["Host : 127.0.0.1:9", "Content-Length: 2"],
            ["Host: 127.0.0.1:9", " folded", "Content-Length: 2"],
        ]
        var shared = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 4096)
        for round in 0..<3 {
            for lines in heads {
                let length = lines.contains("Content-Length: 3") ? 3 : 2
                let bytes = Array(("POST /3/device/ab HTTP/1.1\r\n" + lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
                    + Array("{}}".utf8.prefix(length))
                let together = read(bytes, with: &shared)
                XCTAssertEqual(together, alone(bytes), "round \(round): \(lines)")
                // A failed or closing request ends the connection's parser; the next request gets a new one.
                if together.failure != nil || !together.keepAlive {
                    shared = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 4096)
                }
            }
        }
    }

    /// Invalid UTF-8 in a kept line is repaired each time it comes, the same way.
    func testARepeatedLineWithInvalidUTF8ReadsRepairedEachTime() {
        var parser = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 0)
        let bytes = Array("GET / HTTP/1.1\r\nV: a".utf8) + [0xFF, 0xC3] + Array("\r\n\r\n".utf8)
        for _ in 0..<3 {
            XCTAssertEqual(read(bytes, with: &parser).headers, [HTTPHeader("v", "a\u{FFFD}\u{FFFD}")])
        }
    }

    /// Random requests drawn from a few lines (repeats, near-repeats, framing and malformed lines) read the same
    /// through one parser as each read alone.
    func testRandomRequestsReadAsEachAlone() {
        let pool = ["Host: a", "host: a", "Host: b", "X-Id: 1", "X-Id: 12", "X-Id:1", "V: \u{e9}", "Accept: */*",
                    "Content-Length: 0", "Connection: keep-alive", "Bad Name: x", "T: a\u{0}b", "Z:", "Z: ",
                    "Transfer-Encoding: gzip", "Long: " + String(repeating: "v", count: 600)]
        var random = SeededRandom(splitMix: 7)
        var shared = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 0)
        for _ in 0..<400 {
            let count = Int(random.next() % 6)
            let lines = (0..<count).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
            let bytes = Array(("GET / HTTP/1.1\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
            let together = read(bytes, with: &shared)
            XCTAssertEqual(together, alone(bytes), "\(lines)")
            if together.failure != nil || !together.keepAlive {
                shared = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 0)
            }
        }
    }

    /// At most `capacity` lines of at most `maxLineBytes`; a line found again outlives new lines that never
    /// repeat (the clock rule), so a request id per request does not push a client's fixed lines out.
    func testTheCacheIsBoundedAndKeepsTheLinesThatRepeat() {
        var cache = HTTP1LineCache()
        func add(_ line: String) {
            let bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { cache.add($0, 0, bytes.count, HTTPHeader("n", line)) }
        }
        func find(_ line: String) -> HTTPHeader? {
            let bytes = Array(line.utf8)
            return bytes.withUnsafeBufferPointer { cache.field($0, 0, bytes.count) }
        }
        add(String(repeating: "x", count: HTTP1LineCache.maxLineBytes + 1))
        XCTAssertEqual(cache.count, 0)
        let fixed = (0..<4).map { "fixed-\($0): v" }
        fixed.forEach(add)
        for request in 0..<100 {
            for line in fixed { XCTAssertEqual(find(line), HTTPHeader("n", line), "request \(request)") }
            let id = "x-request-id: \(request)"
            XCTAssertNil(find(id))
            add(id)
            XCTAssertLessThanOrEqual(cache.count, HTTP1LineCache.capacity)
        }
        XCTAssertEqual(find("x-request-id: 99"), HTTPHeader("n", "x-request-id: 99"))
        XCTAssertNil(find("x-request-id: 9"))
    }
}
