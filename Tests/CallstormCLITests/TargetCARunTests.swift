import Foundation
import TestSupport
import XCTest

/// `target.ca`: a server whose https and wss certificate its own CA signed (`callstorm target --tls`, a process of
/// its own) is driven end to end once the scenario names that CA, and refused in the TLS handshake without it.
// serial: it counts every one of 20 registrations refused in the TLS handshake within the run's time; beside
// other classes' runs (4 workers at a load of 17) only 10 got that far, while alone all 20 do.
final class TargetCARunTests: XCTestCase {
    private func scenario(port: Int, gatewayPort: Int, ca: String?, client: String = "curl") -> String {
        """
        name: private-ca
        seed: 3
        devices: 20
        target: { url: "https://127.0.0.1:\(port)"\(ca.map { ", ca: \($0)" } ?? ""), client: \(client) }
        push: { listen: "127.0.0.1:\(gatewayPort)", tls: false, deadline: 2s }
        device: { socket: on_push }
        load:
          - hold: { rate: 10/s, for: 2s }
        mix: { incoming-1to1: 100 }
        behavior: { answer_after: 100ms, talk: 200ms }
        drain: 10s
        action_timeout: 5s
        """
    }

    func testACAFileOpenSSLCannotLoadIsRefusedBeforeTheRun() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("target-ca-bad")
        defer { TemporaryDirectory.remove(dir) }
        try "not a certificate\n".write(to: dir.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        try scenario(port: 8443, gatewayPort: 2197, ca: "key.pem")
            .write(to: dir.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        for command in ["validate", "run"] {
            let result = try ChildProcess.run(binary, [command, "bad.yaml"], in: dir, logs: dir, name: command,
                                              seconds: 60)
            XCTAssertEqual(result.status, 2, "\(command): \(result.out) \(result.err)")
            XCTAssertTrue(result.err.contains("bad.yaml: error: target.ca: TLS client setup failed: cannot load CA "
                                              + "file key.pem"), "\(command): \(result.err)")
        }
    }

    func testDevicesTrustTheTargetsOwnCAForHTTPSAndWssOnlyWhenTheScenarioNamesIt() throws {
        try assertTrustOnlyWithTheCA(client: "curl")
    }

    /// `target.client: wire` (issue 33) verifies the target's https with the same CA, and books the same `tls`.
    func testTheWireClientTrustsTheTargetsOwnCAOnlyWhenTheScenarioNamesIt() throws {
        try assertTrustOnlyWithTheCA(client: "wire")
    }

    private func assertTrustOnlyWithTheCA(client: String) throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("target-ca")
        defer { TemporaryDirectory.remove(dir) }
        let gatewayPort = try CustomAPIExample.freePort()
        let target = try ChildProcess.start(binary, ["target", "--listen", "127.0.0.1:0", "--tls", "--state-dir",
                                                     dir.appendingPathComponent("state").path, "--apns-url",
                                                     "http://127.0.0.1:\(gatewayPort)"],
                                            in: dir, logs: dir, name: "target")
        defer { target.stop() }
        let banner = "listening on https://127.0.0.1:"
        XCTAssertTrue(eventually(20) { target.outputText.contains(banner) }, "no banner: \(target.errorText)")
        let text = target.outputText
        let range = try XCTUnwrap(text.range(of: banner))
        let port = try XCTUnwrap(Int(text[range.upperBound...].prefix { $0.isNumber }))

        // Relative to the scenario file, as a user keeps the CA beside it.
        for (name, ca) in [("trusted", "state/tls/ca.pem"), ("untrusted", nil)] {
            try scenario(port: port, gatewayPort: gatewayPort, ca: ca, client: client)
                .write(to: dir.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent(name)
            let result = try ChildProcess.run(binary, ["run", "\(name).yaml", "--out", out.path, "--quiet"],
                                              in: dir, logs: dir, name: name, seconds: 120)
            // Untrusted, no device registers: the run did nothing, which exits 4 without any threshold.
            XCTAssertEqual(result.status, ca == nil ? 4 : 0, "\(name): \(result.err)")
        }
        let trusted = try SummaryFile(dir.appendingPathComponent("trusted/summary.json"))
        XCTAssertEqual(trusted.counters["calls.completed"], 20, "\(trusted.counters)")
        XCTAssertNil(trusted.counters["errors.tls"])
        XCTAssertGreaterThanOrEqual(trusted.counters["socket.opened"] ?? 0, 20,
                                    "every woken device opened its wss socket")
        XCTAssertEqual(trusted.counters["socket.actions.join"], 20)
        let untrusted = try SummaryFile(dir.appendingPathComponent("untrusted/summary.json"))
        XCTAssertEqual(untrusted.counters["errors.tls"], 20, "every registration refused in the handshake")
        XCTAssertNil(untrusted.counters["calls.completed"])
        let summary = try String(contentsOf: dir.appendingPathComponent("untrusted/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("first contact: no device registered with the target (errors.tls 20): "
                                       + "its certificate was not trusted; name the CA that signed it with "
                                       + "target: { ca: FILE }"), summary)
    }
}
