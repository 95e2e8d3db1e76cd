import Credentials
import Foundation
import HTTPServer
import Locking
import PushGateway
import PushModel
@testable import ReferenceTarget
import TestSupport
import XCTest

/// The target's APNs client against the real push gateway over TLS (HTTP2Wire's client): provider tokens checked
/// by the gateway's keys, renewed after 40 minutes, and what an answer makes of a push.
final class PushSenderTests: XCTestCase {
    private let bundle = "com.example.callstorm"
    private let deviceToken = String(repeating: "0a1b", count: 16)
    private var directory: URL!
    private var server: HTTPServer!
    private let sink = GoAwayAfterFirstSink()
    private var url = ""
    private var signer: ProviderTokenSigner!
    private var caPath = ""

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("pushsender")
        let dir = directory.path
        let material = try LocalCertificateAuthority.ensure(stateDirectory: dir).material
        try ES256Key.generate(privateKeyPath: dir + "/key.p8", publicKeyPath: dir + "/public.pem")
        signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456",
                                     key: try ES256Key(contentsOf: dir + "/key.p8"))
        let verifyKey = try ES256Key(contentsOf: dir + "/public.pem")
        let keys = ProviderKeys(teamID: "TEAM123456", keys: ["KEYID12345": verifyKey])
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: bundle, keys: keys)), sink: sink)
        var config = HTTPServerConfiguration()
        // Client certificates are asked for (not required), as the embedded gateway does for certificate auth.
        config.tls = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath,
                              clientCAPath: material.caCertificatePath)
        caPath = material.caCertificatePath
        server = HTTPServer(configuration: config, handler: gateway)
        try server.start()
        url = "https://127.0.0.1:\(server.port)"
        PushClientSettings.register(PushClientSettings(caFile: material.caCertificatePath, signer: signer),
                                    forGatewayURL: url)
    }

    override func tearDown() {
        server?.stop()
        if let directory { TemporaryDirectory.remove(directory) }
    }

    func testTheProviderTokenIsRenewedAfterFortyMinutesAndTheGatewayTakesTheNewOne() {
        let start = Int64(Date().timeIntervalSince1970)
        let clock = Mutex(start - 50 * 60)
        let sender = PushSender(gatewayURL: url, bundleID: bundle, now: { clock.withLock { $0 } })
        defer { sender.close() }
        // The gateway ends the first connection after the first push (GOAWAY): it would refuse a token changed
        // on one connection within 20 minutes of the last, as APNs does.
        sender.send(.voip, token: deviceToken, payload: #"{"uuid":"one"}"#)
        XCTAssertTrue(eventually(20) { sender.sent.load(ordering: .relaxed) == 1 })
        let first = sender.currentToken()
        clock.withLock { $0 = start }
        sender.send(.voip, token: deviceToken, payload: #"{"uuid":"two"}"#)
        XCTAssertTrue(eventually(20) { sender.sent.load(ordering: .relaxed) == 2 })
        let second = sender.currentToken()
        XCTAssertNotEqual(first, second, "50 minutes on, the token must be a new one")
        clock.withLock { $0 = start + 60 }
        sender.send(.background, token: deviceToken, payload: #"{"uuid":"three"}"#)
        XCTAssertTrue(eventually(20) { sender.sent.load(ordering: .relaxed) == 3 })
        XCTAssertEqual(sender.currentToken(), second, "a minute on, the token stays")
        XCTAssertEqual(sender.failed.load(ordering: .relaxed), 0)
        XCTAssertEqual(sink.accepted, 3)
    }

    func testAReasonAnswerFailsThePushWithoutARetryAndAServiceUnavailableIsRetried() {
        let sender = PushSender(gatewayURL: url, bundleID: bundle, retries: 1)
        defer { sender.close() }
        sender.send(.voip, token: deviceToken, payload: #"{"uuid":"bad","callstorm-answer":{"reason":"BadTopic"}}"#)
        XCTAssertTrue(eventually(20) { sender.failed.load(ordering: .relaxed) == 1 })
        XCTAssertEqual(sender.retried.load(ordering: .relaxed), 0)
        sender.send(.voip, token: deviceToken, payload: #"{"uuid":"busy","callstorm-answer":{"status":503}}"#)
        XCTAssertTrue(eventually(20) { sender.failed.load(ordering: .relaxed) == 2 })
        XCTAssertEqual(sender.retried.load(ordering: .relaxed), 1, "503 is tried again once")
        XCTAssertEqual(sender.sent.load(ordering: .relaxed), 0)
    }

    func testCertificateAuthPresentsTheClientCertificateAndSendsNoToken() throws {
        let certificate = directory.path + "/voip.pem"
        try PushClientCertificate.issue(PushClientCertificate.Request(bundleID: bundle),
                                        stateDirectory: directory.path, to: certificate)
        // Another spelling of the same origin, so its settings are this test's alone.
        let certURL = url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        PushClientSettings.register(PushClientSettings(caFile: caPath, clientCertificatePath: certificate),
                                    forGatewayURL: certURL)
        let sender = PushSender(gatewayURL: certURL, bundleID: bundle)
        defer { sender.close() }
        sender.send(.voip, token: deviceToken, payload: #"{"uuid":"cert"}"#)
        XCTAssertTrue(eventually(20) {
            sender.sent.load(ordering: .relaxed) + sender.failed.load(ordering: .relaxed) == 1
        })
        XCTAssertEqual(sender.sent.load(ordering: .relaxed), 1, "without the certificate: MissingProviderToken")
        XCTAssertEqual(sender.currentToken(), "", "certificate auth signs no token")
    }

    func testGatewayURLsSplitIntoHostPortAndPath() {
        XCTAssertEqual(GatewayOrigin("https://127.0.0.1:2197"), GatewayOrigin(host: "127.0.0.1", port: 2197, path: ""))
        XCTAssertEqual(GatewayOrigin("https://[::1]:443/base"), GatewayOrigin(host: "::1", port: 443, path: "/base"))
        XCTAssertEqual(GatewayOrigin("https://api.push.apple.com"),
                       GatewayOrigin(host: "api.push.apple.com", port: 443, path: ""))
        XCTAssertNil(GatewayOrigin("http://127.0.0.1:2197"))
        XCTAssertNil(GatewayOrigin("https://127.0.0.1:notaport"))
    }
}

/// Accepts every push and asks the gateway for a GOAWAY after the first.
final class GoAwayAfterFirstSink: PushSink {
    private let count = Mutex(0)
    var accepted: Int { count.withLock { $0 } }
    func accept(_ push: APNsPush) -> APNsRejection? { answer(push).rejection }
    func answer(_ push: APNsPush) -> PushSinkAnswer {
        PushSinkAnswer(rejection: nil, goAway: count.withLock { $0 += 1; return $0 } == 1)
    }
}
