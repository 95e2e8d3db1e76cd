import Credentials
import Foundation
import HTTPServer
import TestSupport
import XCTest

/// HTTP/2 against a client no one here wrote: the curl binary, over h2c with prior knowledge and over TLS with
/// ALPN, and HTTP/1.1 on the same ports.
final class HTTP2InteropTests: XCTestCase {
    private var stateDir = ""
    private var tls: TLSMaterial!

    override func setUpWithError() throws {
        stateDir = try TemporaryDirectory.make("interop").path
        tls = try LocalCertificateAuthority.ensure(stateDirectory: stateDir).material
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: stateDir)
    }

    private func tlsConfiguration() -> HTTPServerConfiguration {
        var config = HTTPServerConfiguration()
        config.tls = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath)
        return config
    }

    private func curl(_ arguments: [String]) throws -> (version: String, status: String, body: String, run: ToolRun) {
        let run = try ExternalTool.run("curl", ["-sS", "--max-time", "10", "-w", "\n%{http_version} %{http_code}"]
            + arguments)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let last = lines.last.map(String.init) ?? ""
        let parts = last.split(separator: " ").map(String.init)
        let body = lines.dropLast().joined(separator: "\n")
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "", body, run)
    }

    func testCurlPriorKnowledgeSpeaksHTTP2OverCleartext() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        let result = try curl(["--http2-prior-knowledge", "-d", "hello", "http://127.0.0.1:\(server.port)/a?b=1"])
        XCTAssertEqual(result.run.status, 0, result.run.stderr)
        XCTAssertEqual(result.version, "2")
        XCTAssertEqual(result.status, "200")
        XCTAssertEqual(result.body, "POST /a?b=1 hello")
        XCTAssertEqual(server.stats.http2Connections, 1)
    }

    func testCleartextPortStillServesHTTP1() throws {
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        let result = try curl(["--http1.1", "http://127.0.0.1:\(server.port)/plain"])
        XCTAssertEqual(result.run.status, 0, result.run.stderr)
        XCTAssertEqual(result.version, "1.1")
        XCTAssertEqual(result.body, "GET /plain ")
    }

    func testCurlOverTLSNegotiatesH2WithALPNAndTrustsTheLocalCA() throws {
        let server = try startServer(tlsConfiguration(), echoHandler)
        defer { server.stop() }
        for host in ["127.0.0.1", "localhost"] {
            let result = try curl(["--http2", "--cacert", tls.caCertificatePath, "-d", "x",
                                   "https://\(host):\(server.port)/tls"])
            XCTAssertEqual(result.run.status, 0, result.run.stderr)
            XCTAssertEqual(result.version, "2")
            XCTAssertEqual(result.body, "POST /tls x")
        }
        XCTAssertEqual(server.stats.tlsHandshakes, 2)
    }

    func testCertificateCoversTheAPNsHostNames() throws {
        let server = try startServer(tlsConfiguration(), echoHandler)
        defer { server.stop() }
        let result = try curl(["--http2", "--cacert", tls.caCertificatePath,
                               "--resolve", "api.sandbox.push.apple.com:\(server.port):127.0.0.1",
                               "https://api.sandbox.push.apple.com:\(server.port)/apns"])
        XCTAssertEqual(result.run.status, 0, result.run.stderr)
        XCTAssertEqual(result.status, "200")
    }

    func testTLSWithHTTP1ALPNServesHTTP1() throws {
        let server = try startServer(tlsConfiguration(), echoHandler)
        defer { server.stop() }
        let result = try curl(["--http1.1", "--cacert", tls.caCertificatePath, "https://127.0.0.1:\(server.port)/one"])
        XCTAssertEqual(result.run.status, 0, result.run.stderr)
        XCTAssertEqual(result.version, "1.1")
        XCTAssertEqual(result.body, "GET /one ")
    }

    func testManyMultiplexedStreamsOnOneConnectionAllGetAnswers() throws {
        let server = try startServer(tlsConfiguration(), echoHandler)
        defer { server.stop() }
        let urls = (0..<50).map { "https://127.0.0.1:\(server.port)/s\($0)" }
        let run = try ExternalTool.run("curl", ["-sS", "--http2", "--parallel", "--parallel-max", "50",
                                                "--cacert", tls.caCertificatePath, "-w", "%{http_code}\n"] + urls)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout.components(separatedBy: "200").count - 1, 50)
        XCTAssertEqual(server.stats.tlsHandshakes, 1, "curl --parallel should multiplex over one connection")
    }

    func testGoAwayAfterAnAnswerMakesTheClientOpenANewConnectionForTheNextRequest() throws {
        let server = try startServer(tlsConfiguration()) { request, respond in
            var response = HTTPResponse.text(200, "\(request.path)")
            response.goAway = request.path != "/keep"
            respond(response)
        }
        defer { server.stop() }
        // One curl, four requests in a row: it would reuse its connection, but each GOAWAY ends it.
        let urls = ["/a", "/b", "/c", "/keep"].map { "https://127.0.0.1:\(server.port)\($0)" }
        let run = try ExternalTool.run("curl", ["-sS", "--http2", "--cacert", tls.caCertificatePath,
                                                "-w", " %{http_code} %{num_connects}\n"] + urls)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["/a 200 1", "/b 200 1", "/c 200 1", "/keep 200 1"], run.stdout)
        XCTAssertEqual(server.stats.goAwaysSent, 3)
        XCTAssertEqual(server.stats.tlsHandshakes, 4, "a new connection after each GOAWAY")
        XCTAssertEqual(server.stats.http2ProtocolErrors, 0, "a graceful GOAWAY is no protocol error")
    }
}

/// Flow control and stream limits, checked with nghttp (nghttp2-client) whose windows can be made tiny.
final class HTTP2FlowControlTests: XCTestCase {
    func testLargeResponseIsSentWithinTheClientsSmallFlowControlWindow() throws {
        let big = [UInt8](repeating: UInt8(ascii: "z"), count: 3 << 20)
        let server = try startServer { _, respond in respond(HTTPResponse(status: 200, body: big)) }
        defer { server.stop() }
        // -w/-W 14: 16 KiB stream and connection windows, so the 3 MiB body needs ~190 WINDOW_UPDATEs.
        let run = try ExternalTool.run("nghttp", ["-n", "-s", "-w", "14", "-W", "14", "-m", "3",
                                                  "http://127.0.0.1:\(server.port)/big"])
        XCTAssertEqual(run.status, 0, run.stderr + run.stdout)
        XCTAssertEqual(run.stdout.components(separatedBy: "/big").count - 1, 3, run.stdout)
        XCTAssertFalse(run.stdout.contains("error"), run.stdout)
    }

    func testServerAdvertisesMaxConcurrentStreams() throws {
        var config = HTTPServerConfiguration()
        config.maxConcurrentStreams = 77
        let server = try startServer(config, echoHandler)
        defer { server.stop() }
        let run = try ExternalTool.run("nghttp", ["-nv", "http://127.0.0.1:\(server.port)/"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):77"), run.stdout)
    }
}
