import Determinism
import Dispatch
import Foundation
import HTTPServer
import TestSupport
import XCTest

final class HTTPServerTests: XCTestCase {
    // MARK: - Basic requests

    func testGetIsAnsweredWithContentLengthAndServerHeader() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        XCTAssertGreaterThan(server.port, 0)

        let client = try TestClient(port: server.port)
        let response = try client.request("GET", "/hello?x=1")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyString, "GET /hello?x=1 ")
        XCTAssertEqual(response.header("content-length"), "\(response.body.count)")
        XCTAssertEqual(response.header("server"), "callstorm")
        XCTAssertNil(response.header("connection"))
    }

    func testPostBodyAndHeadersReachTheHandler() throws {
        let seen = Locked<HTTPRequest?>(nil)
        let server = try startServer { request, respond in
            seen.withLock { $0 = request }
            respond(.json(201, #"{"ok":true}"#, headers: [HTTPHeader("apns-id", "abc")]))
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let response = try client.request(
            "POST", "/3/device/ff00", headers: ["Apns-Topic: com.example.voip", "X-Dup: 1", "x-dup: 2"],
            body: #"{"aps":{}}"#)
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.bodyString, #"{"ok":true}"#)
        XCTAssertEqual(response.header("content-type"), "application/json")
        XCTAssertEqual(response.header("apns-id"), "abc")

        let request = try XCTUnwrap(seen.value)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/3/device/ff00")
        XCTAssertEqual(request.bodyString, #"{"aps":{}}"#)
        XCTAssertEqual(request.header("APNS-TOPIC"), "com.example.voip")
        XCTAssertEqual(request.headerValues("x-dup"), ["1", "2"])
        XCTAssertEqual(request.headers.first?.name, "host")
        XCTAssertTrue(request.headers.allSatisfy { $0.name == $0.name.lowercased() })
    }

    func testHeadGetsContentLengthButNoBody() throws {
        let server = try startServer { _, respond in respond(.text(200, "twelve bytes")) }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let head = try client.request("HEAD", "/")
        XCTAssertEqual(head.header("content-length"), "12")
        // Read as if no body followed: the next response must start right away.
        let next = try client.request("GET", "/")
        XCTAssertEqual(next.bodyString, "twelve bytes")
    }

    // MARK: - Connection reuse

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let connections = Locked<Set<UInt64>>([])
        let server = try startServer { request, respond in
            connections.withLock { _ = $0.insert(request.connectionID) }
            respond(.text(200, request.path))
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        for i in 0..<10 {
            let response = try client.request("GET", "/\(i)")
            XCTAssertEqual(response.bodyString, "/\(i)")
        }
        XCTAssertEqual(connections.value.count, 1)
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
        XCTAssertEqual(server.stats.requests, 10)
    }

    func testPipelinedRequestsAreAnsweredInOrderWhenHandlersAnswerOutOfOrder() throws {
        let paths = ["/slow", "/medium", "/fast", "/slow", "/fast"]
        // Every handler holds its answer until all five requests are in, then they answer last first (was: delays
        // of 300 and 100 ms on the real clock): the server must still write them in request order.
        let held = HeldAnswers(count: paths.count)
        let server = try startServer { request, respond in held.add(.text(200, request.path), respond) }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
        for path in paths {
            XCTAssertEqual(try client.readResponse().bodyString, path)
        }
    }

    func testPipelinedRequestsBeyondTheDepthLimitAreAllAnswered() throws {
        let server = try startServer { request, respond in respond(.text(200, request.path)) }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let count = 300
        try client.send((0..<count).map { "GET /\($0) HTTP/1.1\r\n\r\n" }.joined())
        for i in 0..<count {
            XCTAssertEqual(try client.readResponse().bodyString, "/\(i)")
        }
    }

    func testConnectionCloseRequestClosesAfterTheResponse() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let response = try client.request("GET", "/", headers: ["Connection: close"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(client.waitForClose())
    }

    func testHandlerConnectionCloseHeaderClosesTheConnection() throws {
        let server = try startServer { _, respond in
            respond(.empty(200, headers: [HTTPHeader("Connection", "close")]))
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let response = try client.request("GET", "/")
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertEqual(response.header("content-length"), "0")
        XCTAssertTrue(client.waitForClose())
    }

    func testHTTP10ClosesUnlessKeepAliveIsAsked() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let plain = try TestClient(port: server.port)
        try plain.send("GET /a HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().header("connection"), "close")
        XCTAssertTrue(plain.waitForClose())

        let keepAlive = try TestClient(port: server.port)
        try keepAlive.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try keepAlive.readResponse().header("connection"), "keep-alive")
        try keepAlive.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try keepAlive.readResponse().bodyString, "GET /b ")
    }

    func testHalfClosedClientStillGetsItsAnswer() throws {
        let server = try startServer { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { respond(.text(200, request.path)) }
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET /late HTTP/1.1\r\n\r\n")
        client.shutdownWrite()
        XCTAssertEqual(try client.readResponse().bodyString, "/late")
        XCTAssertTrue(client.waitForClose())
    }

    func testHalfClosedClientWithAnIncompleteRequestIsClosed() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHo")
        client.shutdownWrite()
        XCTAssertTrue(client.waitForClose())
        XCTAssertEqual(client.leftover, [])
    }

    func testHalfClosedClientGetsEveryPipelinedAnswerBeyondTheDepthLimit() throws {
        let server = try startServer { request, respond in
            DispatchQueue.global().async { respond(.text(200, request.path)) }
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send((0..<200).map { "GET /\($0) HTTP/1.1\r\n\r\n" }.joined())
        client.shutdownWrite()
        for i in 0..<200 {
            XCTAssertEqual(try client.readResponse().bodyString, "/\(i)")
        }
        XCTAssertTrue(client.waitForClose())
    }

    // MARK: - Bodies

    func testExpectContinueGets100BeforeTheBodyIsSent() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        XCTAssertEqual(interim.status, 100)
        try client.send("hello")
        let final = try client.readResponse()
        XCTAssertEqual(final.status, 200)
        XCTAssertEqual(final.bodyString, "POST /up hello")
    }

    func testExpectContinueIsSkippedWhenTheBodyAlreadyArrived() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("POST /up HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testChunkedRequestBodyIsJoined() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send(
            "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: yes\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyString, "POST /c hello world")
        // The connection is still usable afterwards.
        XCTAssertEqual(try client.request("GET", "/next").status, 200)
    }

    func testBodyLargerThanTheLimitGets413AndClose() throws {
        var config = HTTPServerConfiguration()
        config.maxBodyBytes = 1000
        let server = try startServer(config, echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(client.waitForClose())

        let chunked = try TestClient(port: server.port)
        try chunked.send("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n" + String(repeating: "a", count: 1000)
            + "\r\n1\r\nb\r\n0\r\n\r\n")
        XCTAssertEqual(try chunked.readResponse().status, 413)
        XCTAssertEqual(server.stats.badRequests, 2)
    }

    func testLargeBodyArrivingInPiecesIsReceivedWhole() throws {
        let server = try startServer { request, respond in respond(.text(200, "\(request.body.count)")) }
        defer { server.stop() }

        let body = [UInt8](repeating: 0x61, count: 700_000)
        let client = try TestClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nContent-Length: \(body.count)\r\n\r\n")
        try client.send(body)
        XCTAssertEqual(try client.readResponse().bodyString, "700000")
    }

    func testLargeResponseIsWrittenCompletely() throws {
        let payload = [UInt8]((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let server = try startServer { _, respond in respond(HTTPResponse(status: 200, body: payload)) }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let first = try client.request("GET", "/")
        XCTAssertEqual(first.body, payload)
        XCTAssertEqual(try client.request("GET", "/").body.count, payload.count)
    }

    // MARK: - Rejections

    func testOversizedHeaderGets431AndClose() throws {
        var config = HTTPServerConfiguration()
        config.maxHeaderBytes = 4096
        let server = try startServer(config, echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 20_000) + "\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 431)
        XCTAssertTrue(client.waitForClose())
        XCTAssertEqual(server.stats.badRequests, 1)
        XCTAssertEqual(server.stats.requests, 0)
    }

    func testMalformedRequestLineGets400AndClose() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        for bad in ["GARBAGE\r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/x\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
                    "GET / HTTP/1.1\r\n folded: x\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n",
                    "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                    "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"] {
            let client = try TestClient(port: server.port)
            try client.send(bad)
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 400, bad)
            XCTAssertEqual(response.header("connection"), "close", bad)
            XCTAssertTrue(client.waitForClose(), bad)
        }
    }

    func testErrorAfterPipelinedRequestsComesAfterTheirAnswers() throws {
        let server = try startServer { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { respond(.text(200, request.path)) }
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET /one HTTP/1.1\r\n\r\nBROKEN LINE\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyString, "/one")
        XCTAssertEqual(try client.readResponse().status, 400)
        XCTAssertTrue(client.waitForClose())
    }

    func testHTTP2VersionGets505() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/2.0\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 505)
    }

    // MARK: - Asynchronous handlers

    func testHandlerRespondingLaterFromAnotherQueue() throws {
        let queue = DispatchQueue(label: "slow-gateway")
        let server = try startServer { request, respond in
            queue.asyncAfter(deadline: .now() + 0.05) {
                respond(.text(202, "late \(request.path)"))
                // A second answer must be ignored.
                respond(.text(500, "again"))
            }
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        let response = try client.request("GET", "/x")
        XCTAssertEqual(response.status, 202)
        XCTAssertEqual(response.bodyString, "late /x")
        XCTAssertEqual(try client.request("GET", "/y").bodyString, "late /y")
    }

    func testManyConcurrentConnectionsEachDoingRequests() throws {
        var config = HTTPServerConfiguration()
        config.threads = 2
        let server = try startServer(config) { request, respond in
            if request.path.hasSuffix("/async") {
                DispatchQueue.global().async { respond(.text(200, request.path)) }
            } else {
                respond(.text(200, request.path))
            }
        }
        defer { server.stop() }

        let clientCount = 200
        let requestsEach = 5
        let clients = try (0..<clientCount).map { _ in try TestClient(port: server.port) }
        XCTAssertTrue(eventually { server.stats.connectionsOpen == clientCount })

        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in stride(from: worker, to: clientCount, by: 8) {
                for r in 0..<requestsEach {
                    let path = "/c\(index)/r\(r)" + (r % 2 == 0 ? "/async" : "")
                    do {
                        let response = try clients[index].request("GET", path)
                        if response.bodyString != path {
                            failures.withLock { $0.append("\(path) got \(response.bodyString)") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(path): \(error)") }
                    }
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(server.stats.requests, clientCount * requestsEach)
        XCTAssertEqual(server.stats.connectionsAccepted, clientCount)
        for client in clients { client.close() }
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 0 })
    }
}

/// Answers held back until `count` requests have arrived, then given in reverse order of arrival, off the loop's
/// thread as a slow backend would.
private final class HeldAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    private var answers: [(HTTPResponse, @Sendable (HTTPResponse) -> Void)] = []

    init(count: Int) { self.count = count }

    func add(_ response: HTTPResponse, _ respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let all: [(HTTPResponse, @Sendable (HTTPResponse) -> Void)]? = lock.withLock {
            answers.append((response, respond))
            return answers.count == count ? answers : nil
        }
        guard let all else { return }
        DispatchQueue.global().async {
            for (response, respond) in all.reversed() { respond(response) }
        }
    }
}
