import Credentials
import Foundation
import Kamailio
import TestSupport
import XCTest

/// Issue 35's server side: the shipped configuration with `WITH_TLS` and `WITH_WEBSOCKET` takes SIP over TLS, ws
/// and wss on listeners of their own, with a certificate from callstorm's local CA; a WebSocket client whose
/// Contact no proxy can reach (`….invalid;transport=ws`) registers and gets its INVITE back over its WebSocket.
/// The peer is Python's ssl module and PyPI's websockets (scripts/sip-secure-peer.py), code we did not write.
final class KamailioListenersTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func testTheCommandLineListensOnEveryPortAndLoadsWhatTheListenersNeed() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/etc/k.cfg"))
        options.listeners = KamailioListeners(webSocket: false, certificatePath: "/c.pem", keyPath: "/k.pem")
        let args = options.arguments(modules: "/m", runDirectory: "/r",
                                     ports: KamailioPorts(sip: 5060, tls: 5061, secureWebSocket: 5063))
        XCTAssertEqual(Array(args[8..<16]), ["-l", "udp:127.0.0.1:5060", "-l", "tcp:127.0.0.1:5060",
                                             "-l", "tls:127.0.0.1:5061", "-l", "tls:127.0.0.1:5063"])
        XCTAssertEqual(Array(args.suffix(6)), ["-A", "WITH_TLS", "-A", "TLS_CONFIG=\"/r/tls.cfg\"",
                                               "-A", "WITH_WEBSOCKET"])
        XCTAssertTrue(options.listeners!.tlsConfiguration.contains("certificate = /c.pem\n"))
        XCTAssertTrue(options.listeners!.tlsConfiguration.contains("private_key = /k.pem\n"))
        XCTAssertFalse(args.contains("-x") || args.contains("-X"), "the tls module keeps qm: it catches a double free")
        options.listeners = KamailioListeners(tls: false, webSocket: true, secureWebSocket: false,
                                              certificatePath: "/c.pem", keyPath: "/k.pem")
        XCTAssertTrue(options.arguments(modules: "/m", runDirectory: "/r", ports: KamailioPorts(sip: 1, webSocket: 2))
            .contains("-x"), "WebSocket alone loads no tls module")
        options.listeners = nil
        XCTAssertFalse(options.arguments(modules: "/m", runDirectory: "/r", ports: KamailioPorts(sip: 1))
            .contains("WITH_TLS"))
    }

    func testSIPOverTLSAndWebSocketReachesKamailioAndAWebSocketClientGetsItsInviteBack() throws {
        let probe = try ExternalTool.run("python3", ["-c", "import websockets"])
        if probe.status != 0 { throw XCTSkip("PyPI websockets is not installed (scripts/test-deps.sh installs it)") }
        guard let modules = KamailioServer.moduleDirectory,
              FileManager.default.fileExists(atPath: modules + "/tls.so"),
              FileManager.default.fileExists(atPath: modules + "/websocket.so") else {
            throw XCTSkip("kamailio-tls-modules or kamailio-websocket-modules is not installed")
        }
        let dir = try TemporaryDirectory.make("kamailio-listeners")
        defer { TemporaryDirectory.remove(dir) }
        let material = try LocalCertificateAuthority.ensure(stateDirectory: dir.path).material
        var options = KamailioOptions()
        options.listeners = KamailioListeners(certificatePath: material.certificatePath, keyPath: material.keyPath)
        let kamailio = try KamailioServer(options: options)
        defer { kamailio.stop() }
        let ports = kamailio.ports
        let peer = try ExternalTool.run("python3", [
            Self.repository.appendingPathComponent("scripts/sip-secure-peer.py").path, material.caCertificatePath,
            "\(ports.sip)", "\(try XCTUnwrap(ports.tls))", "\(try XCTUnwrap(ports.webSocket))",
            "\(try XCTUnwrap(ports.secureWebSocket))", "callstorm",
        ])
        XCTAssertEqual(peer.status, 0, peer.stderr + "\n" + kamailio.log.suffix(2000))
        let steps = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(peer.stdout.utf8)) as? [String: String])
        XCTAssertEqual(steps["tls_options"], "SIP/2.0 200 Keepalive")
        XCTAssertEqual(steps["wss_options"], "SIP/2.0 200 Keepalive")
        XCTAssertEqual(steps["ws_register"], "SIP/2.0 200 OK")
        XCTAssertEqual(steps["ws_invite"], "INVITE sip:wsuser@abc.invalid;transport=ws SIP/2.0")
        XCTAssertEqual(steps["udp_final"], "SIP/2.0 486 Busy Here")
    }
}
