import Credentials
import Foundation
import HTTPServer
import PushGateway
import TestSupport
import XCTest

/// The gateway against APNs clients no one here wrote: the curl binary (TLS with ALPN h2, and h2c with prior
/// knowledge) and Python's aioapns (TLS without ALPN), with ES256 provider tokens the gateway verifies.
final class GatewayInteropTests: XCTestCase {
    static let bundle = "com.example.callstorm"
    static let keyID = "KEYID12345"
    static let team = "TEAM123456"
    private let deviceToken = String(repeating: "0a1b", count: 16)
    private var dir = ""
    private var tls: TLSMaterial!
    private var signer: ProviderTokenSigner!
    private var keyPath = ""
    private var gateway: APNsGateway!
    private var server: HTTPServer!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("interop").path
        tls = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        keyPath = dir + "/AuthKey_\(Self.keyID).p8"
        try ES256Key.generate(privateKeyPath: keyPath, publicKeyPath: dir + "/public.pem")
        signer = ProviderTokenSigner(keyID: Self.keyID, teamID: Self.team, key: try ES256Key(contentsOf: keyPath))
        let verifyKey = try ES256Key(contentsOf: dir + "/public.pem")
        gateway = APNsGateway(
            configuration: .init(validator: .init(bundleID: Self.bundle,
                                                  keys: ProviderKeys(teamID: Self.team, keys: [Self.keyID: verifyKey]))),
            sink: CollectingSink())
    }

    override func tearDown() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func startGateway(tls useTLS: Bool) throws -> Int {
        var config = HTTPServerConfiguration()
        if useTLS { config.tls = TLSFiles(certificatePath: tls.certificatePath, keyPath: tls.keyPath) }
        server = HTTPServer(configuration: config, handler: gateway)
        try server.start()
        return server.port
    }

    private func bearer(age: Int64 = 0) -> String {
        "bearer " + signer.token(issuedAt: Int64(Date().timeIntervalSince1970) - age)!
    }

    /// One curl request; returns status, apns-id response header and body.
    private func curlPush(_ base: [String], url: String, token: String? = nil, headers: [String] = [],
                          body: String = #"{"uuid":"u1","handle":{"kind":"generic","value":"a"}}"#)
        throws -> (status: String, apnsID: String?, body: String) {
        let bodyFile = dir + "/body-\(UUID().uuidString).json"
        try body.write(toFile: bodyFile, atomically: true, encoding: .utf8)
        var args = base + ["-sS", "--max-time", "10", "-D", "-", "--data-binary", "@" + bodyFile]
        args += ["-H", "authorization: \(token ?? bearer())"]
        for header in headers { args += ["-H", header] }
        args.append(url + "/3/device/" + deviceToken)
        let run = try ExternalTool.run("curl", args)
        XCTAssertEqual(run.status, 0, run.stderr)
        let head = run.stdout.components(separatedBy: "\r\n\r\n")
        let lines = head.first?.components(separatedBy: "\r\n") ?? []
        let status = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let apnsID = lines.first { $0.lowercased().hasPrefix("apns-id:") }.map {
            $0.dropFirst("apns-id:".count).trimmingCharacters(in: .whitespaces)
        }
        return (status, apnsID, head.dropFirst().joined(separator: "\r\n\r\n"))
    }

    private static let voipHeaders = ["apns-push-type: voip", "apns-topic: \(bundle).voip", "apns-priority: 10"]

    private func assertMalformedRequestsGetAPNsAnswers(_ base: [String], url: String) throws {
        let huge = #"{"pad":""# + String(repeating: "x", count: 6000) + #""}"#
        let cases: [(String, [String], String?, String, String)] = [
            ("wrong topic suffix", ["apns-push-type: voip", "apns-topic: \(Self.bundle)"], nil, "{}",
             #"{"reason":"DeviceTokenNotForTopic"}"#),
            ("oversized payload", Self.voipHeaders, nil, huge, #"{"reason":"PayloadTooLarge"}"#),
            ("expired JWT", Self.voipHeaders, bearer(age: 7200), "{}", #"{"reason":"ExpiredProviderToken"}"#),
            ("missing push type", ["apns-topic: \(Self.bundle)"], nil, "{}", #"{"reason":"InvalidPushType"}"#),
        ]
        for (name, headers, token, body, expected) in cases {
            let sentID = UUID().uuidString.lowercased()
            let r = try curlPush(base, url: url, token: token, headers: headers + ["apns-id: \(sentID)"], body: body)
            XCTAssertEqual(r.body, expected, name)
            XCTAssertEqual(r.apnsID, sentID, "\(name): apns-id must be echoed")
        }
        // The device token is in the path: send it by hand.
        let run = try ExternalTool.run("curl", base + ["-sS", "-o", "/dev/null", "-w", "%{http_code}",
                                                       "-H", "authorization: \(bearer())",
                                                       "-H", "apns-push-type: voip", "-d", "{}",
                                                       url + "/3/device/not-hex"])
        XCTAssertEqual(run.stdout, "400", "bad device token")
    }

    func testCurlOverTLSWithALPNGets200AndAPNsAnswersForMalformedPushes() throws {
        let port = try startGateway(tls: true)
        let base = ["--http2", "--cacert", tls.caCertificatePath]
        let url = "https://127.0.0.1:\(port)"
        let ok = try curlPush(base, url: url, headers: Self.voipHeaders)
        XCTAssertEqual(ok.status, "200")
        XCTAssertEqual(ok.body, "")
        XCTAssertNotNil(ok.apnsID.flatMap { APNsValidator.isValidAPNsID($0) ? $0 : nil }, "a generated apns-id")
        try assertMalformedRequestsGetAPNsAnswers(base, url: url)
        XCTAssertGreaterThanOrEqual(server.stats.tlsHandshakes, 1)
        XCTAssertEqual(server.stats.http2Connections, server.stats.connectionsAccepted)
    }

    func testCurlWithPriorKnowledgeOverCleartextGets200AndAPNsAnswers() throws {
        let port = try startGateway(tls: false)
        let base = ["--http2-prior-knowledge"]
        let url = "http://127.0.0.1:\(port)"
        let sentID = UUID().uuidString.lowercased()
        let ok = try curlPush(base, url: url, headers: Self.voipHeaders + ["apns-id: \(sentID)"])
        XCTAssertEqual(ok.status, "200")
        XCTAssertEqual(ok.apnsID, sentID)
        try assertMalformedRequestsGetAPNsAnswers(base, url: url)
        XCTAssertEqual(gateway.stats.accepted, 1)
    }

    func testAioapnsWithoutALPNSendsVoIPPushesAndGetsAPNsReasons() throws {
        let port = try startGateway(tls: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/aioapns_client.py").path
        let run = try ExternalTool.run("python3", [
            script, "--port", "\(port)", "--ca", tls.caCertificatePath, "--key", keyPath, "--key-id", Self.keyID,
            "--team", Self.team, "--bundle", Self.bundle, "--token", deviceToken,
        ], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        var byCase: [String: [[String: String]]] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
                XCTFail("not a result line: \(line)")
                continue
            }
            byCase[object["case"] ?? "", default: []].append(object)
        }
        let okResults = (byCase["voip"] ?? []) + (byCase["concurrent"] ?? [])
        XCTAssertEqual(okResults.count, 21)
        for result in okResults {
            XCTAssertEqual(result["status"], "200", "\(result)")
            XCTAssertEqual(result["got_id"], result["sent_id"], "apns-id echoed")
        }
        let expected = [
            "bad-token": ("400", "BadDeviceToken"), "wrong-topic": ("400", "DeviceTokenNotForTopic"),
            "oversized": ("413", "PayloadTooLarge"), "missing-push-type": ("400", "InvalidPushType"),
            "expired-jwt": ("403", "ExpiredProviderToken"),
        ]
        for (name, (status, reason)) in expected {
            let result = byCase[name]?.first
            XCTAssertEqual(result?["status"], status, name)
            XCTAssertEqual(result?["reason"], reason, name)
            XCTAssertEqual(result?["got_id"], result?["sent_id"], "\(name): apns-id echoed")
        }
        XCTAssertEqual(gateway.stats.accepted, 21)
        XCTAssertEqual(server.stats.tlsHandshakes, 2, "two aioapns clients, one connection each")
        XCTAssertEqual(server.stats.http2Connections, 2, "HTTP/2 without ALPN, found by the connection preface")
        XCTAssertEqual(server.stats.connectionsAccepted, 2, "all 21 good pushes shared the first client's connection")
    }
}
