import Dispatch
import Foundation
import HTTPServer
import Transport
import XCTest

/// Real libcurl against the project's real HTTP server on loopback.
final class HTTPClientTests: XCTestCase {
    private var server: HTTPServer!
    private let queue = DispatchQueue(label: "test.client")
    private var client: HTTPClient!

    override func setUpWithError() throws {
        server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            switch request.path {
            case "/echo": respond(.json(200, String(decoding: request.body, as: UTF8.self)))
            case "/shape":
                let body = String(decoding: request.body, as: UTF8.self)
                respond(.text(200, "\(request.method) x=\(request.header("x-test") ?? "-") body=\(body)"))
            case let path where path.hasPrefix("/where/"):
                let body = String(decoding: request.body, as: UTF8.self)
                respond(.text(200, "\(request.method) \(path) x=\(request.header("x-test") ?? "-") body=\(body)"))
            case "/never": break  // holds the answer forever
            case "/later":
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { respond(.text(202, "late")) }
            default: respond(.text(404, "no"))
            }
        })
        try server.start()
        queue.sync { client = HTTPClient(queue: queue) }
    }

    override func tearDown() {
        queue.sync { client.close() }
        server.stop()
    }

    private func send(_ request: ClientRequest) -> Result<ClientResponse, TransportError> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<ClientResponse, TransportError>?
        let client = self.client!
        queue.async {
            client.send(request) { r in
                result = r
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return result ?? .failure(.other(code: -2, message: "test timed out"))
    }

    private var base: String { "http://127.0.0.1:\(server.port)" }

    func testPostBodyComesBackWithStatus() throws {
        let body = String(repeating: "x", count: 5000)  // over 1 KiB: no Expect: 100-continue stall
        let response = try send(ClientRequest(method: "POST", url: base + "/echo", body: Array(body.utf8))).get()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, 5000)
        XCTAssertEqual(response.header("server"), "callstorm")
    }

    func testNon2xxIsAResponseNotAnError() throws {
        XCTAssertEqual(try send(ClientRequest(method: "GET", url: base + "/missing")).get().status, 404)
    }

    func testSequentialRequestsReuseOneConnection() throws {
        for _ in 0..<20 { _ = try send(ClientRequest(method: "GET", url: base + "/echo")).get() }
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
    }

    func testHeldAnswerTimesOut() {
        let result = send(ClientRequest(method: "GET", url: base + "/never", timeoutMillis: 200))
        XCTAssertEqual(result.failureKind, "timeout")
    }

    func testRefusedConnectionIsClassified() {
        let port = server.port
        server.stop()
        let result = send(ClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/echo", timeoutMillis: 2000))
        XCTAssertEqual(result.failureKind, "refused", "ECONNREFUSED has a kind of its own (a target that is down)")
    }

    func testFreshConnectionRequestsEachOpenTheirOwn() throws {
        for _ in 0..<5 {
            var request = ClientRequest(method: "GET", url: base + "/echo")
            request.freshConnection = true
            _ = try send(request).get()
        }
        XCTAssertEqual(server.stats.connectionsAccepted, 5)
    }

    func testManyConcurrentRequestsAllComplete() {
        let total = 300
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var statuses: [Int] = []
        let client = self.client!
        let base = self.base
        queue.async {
            for i in 0..<total {
                let path = i % 3 == 0 ? "/later" : "/echo"
                client.send(ClientRequest(method: "POST", url: base + path, body: Array("\(i)".utf8))) { r in
                    statuses.append((try? r.get().status) ?? -1)
                    if statuses.count == total { done.signal() }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, total - total / 3)
        XCTAssertEqual(statuses.filter { $0 == 202 }.count, total / 3)
    }

    /// A spare easy handle keeps its configuration for the next request of the same shape; every other shape must
    /// start from a reset handle, so nothing (method, header, body) leaks from one request into the next.
    func testEasyHandlesReusedAcrossShapesSendOnlyTheirOwnMethodHeadersAndBody() throws {
        func shape(_ method: String, _ headers: [String], _ body: String) throws -> String {
            let request = ClientRequest(method: method, url: base + "/shape", headers: headers, body: Array(body.utf8))
            return String(decoding: try send(request).get().body, as: UTF8.self)
        }
        XCTAssertEqual(try shape("POST", ["x-test: 1"], "a"), "POST x=1 body=a")
        XCTAssertEqual(try shape("POST", ["x-test: 1"], "bb"), "POST x=1 body=bb")
        XCTAssertEqual(try shape("GET", [], ""), "GET x=- body=")
        XCTAssertEqual(try shape("GET", [], ""), "GET x=- body=")
        XCTAssertEqual(try shape("PUT", ["x-test: 2"], "c"), "PUT x=2 body=c")
        XCTAssertEqual(try shape("PUT", ["x-test: 2"], ""), "PUT x=2 body=")
        XCTAssertEqual(try shape("POST", [], ""), "POST x=- body=")
        XCTAssertEqual(try shape("POST", ["x-test: 1"], "d"), "POST x=1 body=d")
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
    }

    /// A handle configured for one URL and header set takes the next request's URL and headers without a reset:
    /// each request reaches its own path with only its own headers.
    func testReusedHandleTakesEachRequestsOwnURLAndHeaders() throws {
        func send(_ method: String, _ path: String, _ headers: [String], _ body: String) throws -> String {
            let request = ClientRequest(method: method, url: base + path, headers: headers, body: Array(body.utf8))
            return String(decoding: try self.send(request).get().body, as: UTF8.self)
        }
        XCTAssertEqual(try send("POST", "/where/a", ["x-test: 1"], "a"), "POST /where/a x=1 body=a")
        XCTAssertEqual(try send("POST", "/where/b", ["x-test: 2"], "b"), "POST /where/b x=2 body=b")
        XCTAssertEqual(try send("POST", "/where/b", [], "c"), "POST /where/b x=- body=c")
        XCTAssertEqual(try send("POST", "/where/c", ["x-test: 3"], "d"), "POST /where/c x=3 body=d")
        XCTAssertEqual(try send("GET", "/where/d", [], ""), "GET /where/d x=- body=")
        XCTAssertEqual(try send("GET", "/where/e", ["x-test: 4"], ""), "GET /where/e x=4 body=")
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
    }

    func testResponseHeadersAreCollectedOnlyWhenAskedFor() throws {
        var request = ClientRequest(method: "GET", url: base + "/echo")
        request.collectsHeaders = false
        XCTAssertTrue(try send(request).get().headers.isEmpty)
        XCTAssertTrue(try send(request).get().headers.isEmpty)
        request.collectsHeaders = true
        XCTAssertEqual(try send(request).get().header("server"), "callstorm")
        request.collectsHeaders = false
        XCTAssertTrue(try send(request).get().headers.isEmpty)
    }

    func testCloseFailsRequestsInFlight() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<ClientResponse, TransportError>?
        queue.sync {
            client.send(ClientRequest(method: "GET", url: base + "/never")) { r in
                result = r
                done.signal()
            }
        }
        Thread.sleep(forTimeInterval: 0.1)
        queue.sync { client.close() }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(result?.failureKind, "other")
    }
}

extension Result where Failure == TransportError {
    var failureKind: String? {
        if case .failure(let e) = self { return e.kind }
        return nil
    }
}
