import Credentials
import Foundation
@testable import HTTPServer
import TestSupport
import XCTest

/// HTTP CONNECT answered by the server itself (ConnectHead, ConnectionStart) and client certificates in the TLS
/// handshake: what a proxy answers to good and bad heads, what is counted and reported, and that the ports'
/// other protocols are untouched.
final class ConnectTunnelTests: XCTestCase {
    private let policy = ConnectPolicy(hosts: ["api.push.apple.com"], ports: [443, 2197])
    private var ca: TemporaryCA!
    private var dir: String { ca.directory }
    private var material: TLSMaterial { ca.material }

    override func setUpWithError() throws { ca = try TemporaryCA() }

    override func tearDown() { ca?.remove() }

    // MARK: - The head

    private func decide(_ text: String) -> ConnectDecision {
        ConnectHead.decide(Array(text.utf8), policy: policy)
    }

    func testAnAllowedTargetIsTunnelledAndHostCaseDoesNotMatter() {
        XCTAssertEqual(decide("CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n"),
                       .tunnel(target: "api.push.apple.com:443"))
        XCTAssertEqual(decide("CONNECT API.Push.Apple.com:2197 HTTP/1.1\nHost: x\n\n"),
                       .tunnel(target: "API.Push.Apple.com:2197"))
    }

    func testOtherTargetsAre403AndMalformedHeadsAre400() {
        let forbidden = decide("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        guard case .refuse(403, "example.com:443", _) = forbidden else { return XCTFail("\(forbidden)") }
        guard case .refuse(403, _, _) = decide("CONNECT api.push.apple.com:80 HTTP/1.1\r\nHost: a\r\n\r\n") else {
            return XCTFail("a port that is not allowed")
        }
        let malformed = [
            "CONNECT api.push.apple.com:443\r\n\r\n",  // no version
            "CONNECT api.push.apple.com HTTP/1.1\r\nHost: a\r\n\r\n",  // no port
            "CONNECT api.push.apple.com:99999 HTTP/1.1\r\nHost: a\r\n\r\n",
            "CONNECT api.push.apple.com:443 HTTP/1.1\r\nno colon here\r\n\r\n",  // bad header block
            "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n",  // a body
            "CONNECT a@api.push.apple.com:443 HTTP/1.1\r\nHost: a\r\n\r\n",
            "CONNECTapi.push.apple.com:443 HTTP/1.1\r\n\r\n",
        ]
        for head in malformed {
            guard case .refuse(let status, _, _) = decide(head), status == 400 || status == 505 else {
                return XCTFail("expected 400 for \(head.debugDescription), got \(decide(head))")
            }
        }
        XCTAssertEqual(ConnectHead.authority("[::1]:443")?.host, "::1")
        XCTAssertNil(ConnectHead.authority(":443"))
        XCTAssertNil(ConnectHead.authority("a:0"))
    }

    // MARK: - On a socket

    /// Records the connection events the server reports.
    private final class Recorder: HTTPHandler {
        let events = Locked<[ConnectionEvent]>([])
        let seen = Locked<[HTTPRequest]>([])

        func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
            seen.withLock { $0.append(request) }
            respond(.text(200, "\(request.method) \(request.path) via \(request.tunnelTarget ?? "-") cert "
                + (request.clientCertificate?.subjectUID ?? "-")))
        }

        func connectionEvent(_ event: ConnectionEvent) { events.withLock { $0.append(event) } }
    }

    private func start(_ recorder: Recorder, listenerTLS: Bool, clientCA: Bool = false) throws -> HTTPServer {
        var config = HTTPServerConfiguration()
        let files = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath,
                             clientCAPath: clientCA ? material.caCertificatePath : nil)
        if listenerTLS { config.tls = files }
        config.connect = ConnectPolicy(hosts: policy.hosts, ports: policy.ports, tunnelTLS: listenerTLS ? nil : files)
        let server = HTTPServer(configuration: config, handler: recorder)
        try server.start()
        return server
    }

    func testMalformedAndForbiddenCONNECTsAreAnsweredAsAProxyWouldCountedAndReported() throws {
        let recorder = Recorder()
        let server = try start(recorder, listenerTLS: true)
        defer { server.stop() }
        let cases: [(String, Int)] = [
            ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", 403),
            ("CONNECT api.push.apple.com HTTP/1.1\r\n\r\n", 400),
            ("CONNECT api.push.apple.com:443 HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000) + "\r\n\r\n", 431),
        ]
        for (head, status) in cases {
            let client = try TestClient(port: server.port)
            try client.send(head)
            let response = try client.readResponse()
            XCTAssertEqual(response.status, status, head.prefix(40).description)
            XCTAssertEqual(response.header("connection"), "close")
            XCTAssertTrue(client.waitForClose())
        }
        XCTAssertTrue(eventually { server.stats.tunnelsRefused == 3 })
        XCTAssertEqual(recorder.events.value.count, 3)
        XCTAssertEqual(recorder.events.value.first,
                       .tunnelRefused(status: 403, target: "example.com:443",
                                      reason: "tunnels go only to APNs hosts on the allowed ports"))
        XCTAssertEqual(server.stats.tunnelsOpened, 0)
    }

    func testATunnelOnACleartextPortServesTLSInsideAndPlainRequestsStillWork() throws {
        let recorder = Recorder()
        let server = try start(recorder, listenerTLS: false)
        defer { server.stop() }
        let run = try ExternalTool.run("curl", ["-sS", "--max-time", "10", "--proxy", "http://127.0.0.1:\(server.port)",
                                                "--cacert", material.caCertificatePath, "--http2",
                                                "https://api.push.apple.com:2197/3/device/x"])
        XCTAssertEqual(run.stdout, "GET /3/device/x via api.push.apple.com:2197 cert -", run.stderr)
        XCTAssertEqual(server.stats.tunnelsOpened, 1)
        XCTAssertEqual(server.stats.http2Connections, 1)
        XCTAssertEqual(recorder.events.value, [.tunnelOpened(target: "api.push.apple.com:2197")])
        // The same port still speaks HTTP/1.1 in the clear, including methods that begin like CONNECT.
        let client = try TestClient(port: server.port)
        let response = try client.request("COPY", "/a")
        XCTAssertEqual(response.bodyString, "COPY /a via - cert -")
        // A CONNECT head that arrives in pieces is read to its end before it is answered.
        let drip = try TestClient(port: server.port)
        for piece in ["CONN", "ECT api.push.apple.com:443 HTTP/1.1\r\nHo", "st: a\r\n", "\r\n"] {
            try drip.send(piece)
            usleep(20_000)
        }
        XCTAssertEqual(try drip.readResponse(bodiless: true).status, 200)
    }

    func testWithoutAPolicyCONNECTReachesTheHandlerAsBefore() throws {
        let recorder = Recorder()
        let server = try startServer(HTTPServerConfiguration(), echoHandler)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        try client.send("CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyString, "CONNECT api.push.apple.com:443 ")
        XCTAssertTrue(recorder.events.value.isEmpty)
    }

    // MARK: - Client certificates

    private func curlWithCertificate(_ port: Int, _ certificate: String?) throws -> ToolRun {
        var args = ["-sS", "--max-time", "10", "--cacert", material.caCertificatePath, "--http2"]
        if let certificate { args += ["--cert", certificate] }
        return try ExternalTool.run("curl", args + ["https://127.0.0.1:\(port)/x"])
    }

    func testAClientCertificateIsAskedForNotRequiredAndItsSubjectAndExtensionsReachTheHandler() throws {
        let recorder = Recorder()
        let server = try start(recorder, listenerTLS: true, clientCA: true)
        defer { server.stop() }
        let path = dir + "/voip.pem"
        try PushClientCertificate.issue(.init(bundleID: "com.example.phone"), stateDirectory: dir, to: path)
        XCTAssertEqual(try curlWithCertificate(server.port, path).stdout, "GET /x via - cert com.example.phone")
        XCTAssertEqual(try curlWithCertificate(server.port, nil).stdout, "GET /x via - cert -")
        let certificate = recorder.seen.value.first?.clientCertificate
        XCTAssertEqual(certificate?.commonName, "VoIP Services: com.example.phone")
        let topics = certificate?.extensions[PushClientCertificate.topicsOID].flatMap(PushClientCertificate.parseTopics)
        XCTAssertEqual(topics, ["com.example.phone", "com.example.phone.voip"])
        XCTAssertEqual(server.stats.clientCertificates, 1)
    }

    func testCertificatesFromAnotherCAOrExpiredEndTheHandshakeAndAreCountedByKind() throws {
        let recorder = Recorder()
        let server = try start(recorder, listenerTLS: true, clientCA: true)
        defer { server.stop() }
        let otherDir = dir + "/other"
        let foreign = dir + "/foreign.pem"
        try PushClientCertificate.issue(.init(bundleID: "com.example.phone"), stateDirectory: otherDir, to: foreign)
        let expired = dir + "/expired.pem"
        try PushClientCertificate.issue(.init(bundleID: "com.example.phone", validFromSeconds: -7200,
                                              validUntilSeconds: -3600), stateDirectory: dir, to: expired)
        XCTAssertNotEqual(try curlWithCertificate(server.port, foreign).status, 0)
        XCTAssertNotEqual(try curlWithCertificate(server.port, expired).status, 0)
        XCTAssertTrue(eventually { server.stats.clientCertificatesRefused == 2 })
        let kinds = recorder.events.value.compactMap { event -> Bool? in
            if case .clientCertificateRefused(let isExpired, _) = event { return isExpired }
            return nil
        }
        XCTAssertEqual(kinds, [false, true])
        XCTAssertTrue(recorder.seen.value.isEmpty, "no request got through")
    }
}
