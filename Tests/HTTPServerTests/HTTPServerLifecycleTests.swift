import Determinism
import Dispatch
import Foundation
import HTTPServer
import TestSupport
import XCTest

/// The server's life beyond single exchanges: timeouts, stop and restart, descriptors, hostile input, and a
/// real client (split from HTTPServerTests to keep files under 500 lines).
final class HTTPServerLifecycleTests: XCTestCase {
    // MARK: - Timeouts and shutdown

    func testIdleConnectionIsClosedAfterTheTimeout() throws {
        var config = HTTPServerConfiguration()
        config.idleTimeoutSeconds = 0.3
        let server = try startServer(config, echoHandler)
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/").status, 200)
        XCTAssertTrue(client.waitForClose())
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 0 })
    }

    func testSlowHandlerIsNotCutOffByTheIdleTimeout() throws {
        var config = HTTPServerConfiguration()
        config.idleTimeoutSeconds = 0.03
        let server = try startServer(config) { _, respond in
            // Three idle timeouts late: a server that timed out busy connections would have closed this one.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.09) { respond(.empty(204)) }
        }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/").status, 204)
    }

    func testStopClosesConnectionsAndFreesThePort() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        let port = server.port

        let client = try TestClient(port: port)
        XCTAssertEqual(try client.request("GET", "/").status, 200)
        server.stop()
        XCTAssertFalse(server.isRunning)
        XCTAssertTrue(client.waitForClose())
        XCTAssertEqual(server.stats.connectionsOpen, 0)

        var config = HTTPServerConfiguration()
        config.port = port
        let again = try startServer(config, echoHandler)
        defer { again.stop() }
        XCTAssertEqual(again.port, port)
        XCTAssertEqual(try TestClient(port: port).request("GET", "/again").status, 200)
    }

    func testServerCanBeRestartedAfterStop() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        server.stop()
        try server.start()
        XCTAssertEqual(try TestClient(port: server.port).request("GET", "/").status, 200)
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertEqual(error as? HTTPServerError, .alreadyRunning)
        }
    }

    func testDescriptorsReturnToBaselineAfterStop() throws {
        // Warm up whatever the runtime opens lazily (Dispatch, Foundation) before taking the baseline.
        do {
            let warm = try startServer(HTTPServerConfiguration(), echoHandler)
            _ = try TestClient(port: warm.port).request("GET", "/")
            warm.stop()
        }
        let baseline = openDescriptorCount()

        var config = HTTPServerConfiguration()
        config.threads = 2
        let server = try startServer(config) { request, respond in
            DispatchQueue.global().async { respond(.text(200, request.path)) }
        }
        defer { server.stop() }
        do {
            var clients: [TestClient] = []
            for i in 0..<20 {
                let client = try TestClient(port: server.port)
                XCTAssertEqual(try client.request("GET", "/\(i)").status, 200)
                clients.append(client)
            }
            // Some rejected, some half-sent, some left open for stop() to close.
            try clients[0].send("BAD\r\n\r\n")
            try clients[1].send("GET / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            for client in clients { client.close() }
        }
        let leftOpen = try (0..<5).map { _ in try TestClient(port: server.port) }
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 5 })
        server.stop()
        for client in leftOpen { client.close() }
        XCTAssertEqual(openDescriptorCount(), baseline)
    }

    func testLateResponseAfterStopIsDropped() throws {
        let held = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _, respond in held.withLock { $0.append(respond) } }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\n\r\n")
        XCTAssertTrue(eventually { held.value.count == 1 })
        server.stop()
        for respond in held.value { respond(.empty(200)) }
        XCTAssertTrue(client.waitForClose())
    }

    func testClientThatClosesWhileItsAnswerIsPendingIsClosedOnceAnswered() throws {
        let held = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _, respond in held.withLock { $0.append(respond) } }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\n\r\n")
        XCTAssertTrue(eventually { held.value.count == 1 })
        // A FIN may be a half-close, so the server keeps the connection until the answer is written.
        client.close()
        held.value[0](.empty(200))
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 0 })
    }

    func testResponseAfterClientDisconnectsIsDropped() throws {
        let held = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { request, respond in
            if request.path == "/hold" { held.withLock { $0.append(respond) } } else { respond(.empty(200)) }
        }
        defer { server.stop() }

        let first = try TestClient(port: server.port)
        try first.send("GET /hold HTTP/1.1\r\n\r\n")
        XCTAssertTrue(eventually { held.value.count == 1 })
        first.reset()
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 0 })
        // A new connection may reuse the same fd; the stale answer must not reach it.
        let second = try TestClient(port: server.port)
        try second.send("GET /hold HTTP/1.1\r\n\r\n")
        XCTAssertTrue(eventually { held.value.count == 2 })
        held.value[0](.text(200, "stale"))
        held.value[1](.text(200, "fresh"))
        XCTAssertEqual(try second.readResponse().bodyString, "fresh")
    }

    func testBindFailureNamesTheAddressAndErrno() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }

        var config = HTTPServerConfiguration()
        config.port = server.port
        let clash = HTTPServer(configuration: config, handler: HTTPClosureHandler(echoHandler))
        XCTAssertThrowsError(try clash.start()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("127.0.0.1:\(server.port)"), text)
            XCTAssertTrue(text.contains("errno 98"), text)
        }
        config.host = "not-an-address"
        XCTAssertThrowsError(try HTTPServer(configuration: config, handler: HTTPClosureHandler(echoHandler)).start())
        XCTAssertThrowsError(try HTTPServer(
            configuration: HTTPServerConfiguration(threads: 0), handler: HTTPClosureHandler(echoHandler)).start()
        ) { error in
            XCTAssertTrue("\(error)".contains("threads"))
        }
    }

    // MARK: - Hostile input

    func testRandomGarbageDoesNotKillTheServer() throws {
        var config = HTTPServerConfiguration()
        config.maxHeaderBytes = 2048
        config.threads = 2
        let server = try startServer(config, echoHandler)
        defer { server.stop() }

        let seed: UInt64 = 0xC0FFEE
        var random = SeededRandom(splitMix: seed)
        let prefixes = ["", "GET / HTTP/1.1\r\n", "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n",
                        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\r\nExpect: 100-continue\r\n"]
        for round in 0..<150 {
            let client = try TestClient(port: server.port)
            var bytes = Array(prefixes[Int(random.next() % UInt64(prefixes.count))].utf8)
            let length = Int(random.next() % 5000)
            for _ in 0..<length {
                let r = random.next()
                // Lean towards bytes that matter to the parser.
                let special: [UInt8] = [13, 10, 32, 58, 59, 48, 0x66, 0]
                bytes.append(r % 4 == 0 ? special[Int((r >> 8) % UInt64(special.count))] : UInt8(truncatingIfNeeded: r >> 16))
            }
            try? client.send(bytes)
            client.shutdownWrite()
            XCTAssertTrue(client.waitForClose(), "round \(round) seed \(seed)")
        }
        let good = try TestClient(port: server.port)
        XCTAssertEqual(try good.request("GET", "/still-alive").status, 200)
        XCTAssertTrue(eventually { server.stats.connectionsOpen == 1 })
    }

    // MARK: - A real client

    func testCurlPostWithExpectContinue() throws {
        let curl = "/usr/bin/curl"
        guard FileManager.default.isExecutableFile(atPath: curl) else { throw XCTSkip("no curl") }
        let server = try startServer { request, respond in
            respond(.text(200, "\(request.body.count) \(request.header("expect") ?? "-")"))
        }
        defer { server.stop() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = ["-s", "--max-time", "5", "-H", "Expect: 100-continue", "-X", "POST", "--data-binary", String(repeating: "z", count: 5000),
                             "http://127.0.0.1:\(server.port)/p", "http://127.0.0.1:\(server.port)/p"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "5000 100-continue5000 100-continue")
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
    }
}
