import Credentials
import Foundation
import HTTPServer
import PushGateway
import TestSupport
import XCTest

/// Published APNs clients, unchanged, against the gateway the way their users redirect them (issue 17): aioapns
/// by host and port (JWT and client certificate), kalyke-apns and pyapns-client through HTTPS_PROXY (CONNECT),
/// httpx with HTTP/2, curl through `--proxy`, and an h2 client that offers no ALPN. Each sends a VoIP push the
/// gateway accepts and hands to its sink (where a run's device would receive it). The Python packages come from
/// PyPI (scripts/test-deps.sh); a test skips only when they are missing and the package index cannot be reached.
final class GatewayClientInteropTests: XCTestCase {
    static let bundle = "com.example.phone"
    static let keyID = "KEYID12345"
    static let team = "TEAM123456"
    private let deviceToken = String(repeating: "7c3d", count: 16)
    private var fixture: ProviderFixture!
    private var tls: TLSMaterial { fixture.tls }
    private var certPath: String { fixture.directory + "/voip.pem" }
    private var sink: CollectingSink!
    private var gateway: APNsGateway!
    private var server: HTTPServer!

    override func setUpWithError() throws {
        fixture = try ProviderFixture(bundleID: Self.bundle, keyID: Self.keyID, teamID: Self.team)
        try PushClientCertificate.issue(.init(bundleID: Self.bundle), stateDirectory: fixture.directory, to: certPath)
        sink = CollectingSink()
        gateway = APNsGateway(configuration: fixture.configuration, sink: sink)
    }

    override func tearDown() {
        server?.stop()
        fixture?.remove()
    }

    /// The gateway as `callstorm gateway` runs it: TLS (or cleartext with TLS inside tunnels), CONNECT to the
    /// APNs hosts, client certificates asked for from the local CA.
    private func startGateway(tls useTLS: Bool = true) throws -> Int {
        var config = HTTPServerConfiguration()
        let files = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath,
                             clientCAPath: tls.caCertificatePath)
        if useTLS { config.tls = files }
        config.connect = APNsGateway.connectPolicy(tunnelTLS: useTLS ? nil : files)
        server = HTTPServer(configuration: config, handler: gateway)
        try server.start()
        return server.port
    }

    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apns_clients.py").path

    /// Runs one client of the fixture; its result lines, or a skip when its package is missing and PyPI is
    /// unreachable.
    private func runClient(_ client: String, port: Int) throws -> [[String: String]] {
        let run = try ExternalTool.run("python3", [
            Self.fixture, client, "--port", "\(port)", "--ca", tls.caCertificatePath, "--bundle", Self.bundle,
            "--token", deviceToken, "--key", fixture.keyPath, "--key-id", Self.keyID, "--team", Self.team,
            "--cert", certPath,
        ], timeout: 90)
        if run.status == 3 {
            try Self.skipUnlessPackageIndexReachable(run.stderr)
            XCTFail("\(run.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) although PyPI is reachable: "
                + "run scripts/test-deps.sh (make test does)")
            return []
        }
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
        }
    }

    static func skipUnlessPackageIndexReachable(_ detail: String) throws {
        let probe = try ExternalTool.run("python3", ["-c",
            "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=10)"], timeout: 20)
        if probe.status != 0 {
            throw XCTSkip("\(detail.trimmingCharacters(in: .whitespacesAndNewlines)) and the package index "
                + "(pypi.org) cannot be reached to install it")
        }
    }

    private func assertAccepted(_ results: [[String: String]], _ client: String, file: StaticString = #filePath,
                                line: UInt = #line) {
        let voip = results.first { $0["case"]?.hasPrefix("voip") == true }
        XCTAssertEqual(voip?["status"], "200", "\(client): \(results)", file: file, line: line)
        XCTAssertTrue(sink.received.contains { $0.token == deviceToken && $0.pushType == .voip },
                      "\(client): the push reached the sink", file: file, line: line)
    }

    private func counter(_ name: String) -> Int {
        gateway.connectionCounters.first { $0.name == name }?.value ?? 0
    }

    func testAioapnsWithAProviderTokenByHostAndPortOverride() throws {
        let port = try startGateway()
        assertAccepted(try runClient("aioapns-jwt", port: port), "aioapns")
        XCTAssertEqual(counter("gateway.connections.token"), 1)
    }

    func testAioapnsWithAClientCertificateIsAcceptedAndHeldToTheCertificatesTopics() throws {
        let port = try startGateway()
        let results = try runClient("aioapns-cert", port: port)
        assertAccepted(results, "aioapns client_cert")
        let other = results.first { $0["case"] == "other-topic" }
        XCTAssertEqual(other?["status"], "400")
        XCTAssertEqual(other?["reason"], "TopicDisallowed")
        XCTAssertEqual(counter("gateway.connections.certificate"), 1)
        XCTAssertEqual(server.stats.clientCertificates, 1)
    }

    func testKalykeVoIPClientThroughHTTPSProxySendsIatAsAStringAndIsAccepted() throws {
        let port = try startGateway()
        assertAccepted(try runClient("kalyke", port: port), "kalyke-apns")
        XCTAssertEqual(counter("gateway.jwt.iat_string"), 1, "kalyke writes iat as a decimal string")
        XCTAssertEqual(counter("gateway.connect.tunnels"), 1)
    }

    func testKalykeCertificateClientThroughHTTPSProxyOnACleartextPort() throws {
        let port = try startGateway(tls: false)
        assertAccepted(try runClient("kalyke-cert", port: port), "kalyke VoIPCertificateClient")
        XCTAssertEqual(counter("gateway.connections.certificate"), 1)
        XCTAssertEqual(server.stats.tunnelsOpened, 1)
    }

    func testPyapnsClientThroughHTTPSProxySendsIatAsAFloatAndIsAccepted() throws {
        let port = try startGateway()
        assertAccepted(try runClient("pyapns-client", port: port), "pyapns-client")
        XCTAssertEqual(counter("gateway.jwt.iat_float"), 1)
        XCTAssertEqual(counter("gateway.connect.tunnels"), 1)
    }

    func testHttpxWithHTTP2() throws {
        let port = try startGateway()
        let results = try runClient("httpx", port: port)
        assertAccepted(results, "httpx")
        XCTAssertEqual(results.first?["version"], "HTTP/2")
    }

    func testAnH2ClientOfferingNoALPNThroughACONNECTTunnel() throws {
        let port = try startGateway()
        assertAccepted(try runClient("no-alpn", port: port), "h2 without ALPN")
        XCTAssertEqual(server.stats.http2Connections, 1, "HTTP/2 found by its preface, not ALPN")
    }

    func testCurlThroughProxyWithACertificateAndWithoutOne() throws {
        let port = try startGateway(tls: false)
        func curl(_ extra: [String], host: String = "api.sandbox.push.apple.com") throws -> String {
            let run = try ExternalTool.run("curl", ["-sS", "--max-time", "10", "--proxy", "http://127.0.0.1:\(port)",
                "--cacert", tls.caCertificatePath, "--http2", "-H", "apns-push-type: voip",
                "-H", "apns-topic: \(Self.bundle).voip", "-d", #"{"uuid":"u"}"#, "-w", " %{http_code}"] + extra
                + ["https://\(host)/3/device/\(deviceToken)"])
            return run.stdout + run.stderr
        }
        XCTAssertEqual(try curl(["--cert", certPath]), " 200")
        XCTAssertEqual(try curl([]), #"{"reason":"MissingProviderToken"} 403"#)
        let refused = try curl([], host: "example.com")
        XCTAssertTrue(refused.contains("403"), refused)
        XCTAssertEqual(server.stats.tunnelsOpened, 2)
        XCTAssertEqual(server.stats.tunnelsRefused, 1)
        XCTAssertEqual(counter("gateway.connect.refused"), 1)
        XCTAssertEqual(sink.received.count, 1)
    }
}
