import Foundation
import Scenario
import XCTest

/// `device.transport: tls` and `target.sip.ca`: SIP devices over TLS and the CA they verify the registrar with.
final class SIPTLSSectionTests: XCTestCase {
    private func load(_ device: String, sip: String, faults: String = "") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip-tls
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: \(sip) }
            device: \(device)
            mix: { outgoing-1to1: 100 }
            \(faults)
            """, file: "sip-tls.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    private func temporaryCA() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sip-tls-ca-\(getpid()).pem").path
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testTLSDevicesAndTheirCAAreRead() throws {
        let ca = try temporaryCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let scenario = try load("{ signaling: sip, sleep: true, transport: tls }",
                                sip: "{ registrar: \"127.0.0.1:5061\", ca: \"\(ca)\" }").get()
        XCTAssertEqual(scenario.device.sip, SIPDeviceSpec(sleep: true, transport: .tls))
        XCTAssertEqual(scenario.sip?.caFile, ca)
        XCTAssertEqual(scenario.sip?.port, 5061)
        let launched = try load("{ signaling: sip, transport: tls }", sip: "{ kamailio: true, ca: \"\(ca)\" }").get()
        XCTAssertEqual(launched.sip?.caFile, ca)
        XCTAssertNotNil(launched.sip?.kamailio)
    }

    func testWithoutACANoneIsSetHereTheRunPicksItsOwn() throws {
        let scenario = try load("{ signaling: sip, transport: tls }", sip: "{ kamailio: true }").get()
        XCTAssertNil(scenario.sip?.caFile, "the run sets callstorm's local CA when it starts Kamailio")
        XCTAssertTrue(SIPDeviceSpec.Transport.tls.isConnection)
        XCTAssertFalse(SIPDeviceSpec.Transport.udp.isConnection)
    }

    func testACAFileThatCannotBeReadIsNamedAtItsPlace() {
        let text = messages(load("{ signaling: sip, transport: tls }",
                                 sip: "{ registrar: \"127.0.0.1:5061\", ca: /nonexistent/ca.pem }"))
        XCTAssertTrue(text.contains("sip-tls.yaml:4:"), text)
        XCTAssertTrue(text.contains("cannot read CA file '/nonexistent/ca.pem'"), text)
    }

    func testACAForDevicesThatDoNotSpeakTLSIsRefused() throws {
        let ca = try temporaryCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let text = messages(load("{ signaling: sip, transport: tcp }", sip: "{ kamailio: true, ca: \"\(ca)\" }"))
        XCTAssertTrue(text.contains("sip-tls.yaml:4:"), text)
        // The message names both transports that verify a certificate (wss since issue 35's WebSocket devices).
        XCTAssertTrue(text.contains("it applies with 'device.transport: tls' or 'wss' (the devices use tcp)"), text)
    }

    /// `tls_resumption`: read on tls and wss devices; refused where no TLS session exists to resume.
    func testTLSResumptionIsReadOverTLSAndRefusedWithoutTLS() throws {
        let tls = try load("{ signaling: sip, transport: tls, tls_resumption: true }",
                           sip: "{ kamailio: true }").get()
        XCTAssertEqual(tls.device.sip?.tlsResumption, true)
        let wss = try load("{ signaling: sip, transport: wss, tls_resumption: true }", sip: "{ kamailio: true }").get()
        XCTAssertEqual(wss.device.sip?.tlsResumption, true)
        let refused = messages(load("{ signaling: sip, transport: ws, tls_resumption: true }",
                                    sip: "{ kamailio: true }"))
        XCTAssertTrue(refused.contains("sip-tls.yaml:5:"), refused)
        XCTAssertTrue(refused.contains("'device.tls_resumption' resumes TLS sessions; it applies with "
                                       + "'transport: tls' or 'wss' (the devices use ws)"), refused)
    }

    /// `ws` and `wss` (SIP over WebSocket): both connections; only wss verifies the registrar, so only wss takes a CA.
    func testWebSocketTransportsAreReadAndOnlyWSSTakesACA() throws {
        let ca = try temporaryCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let wss = try load("{ signaling: sip, sleep: true, transport: wss }",
                           sip: "{ registrar: \"127.0.0.1:8443\", ca: \"\(ca)\" }").get()
        XCTAssertEqual(wss.device.sip, SIPDeviceSpec(sleep: true, transport: .wss))
        XCTAssertEqual(wss.sip?.caFile, ca)
        let ws = try load("{ signaling: sip, transport: ws }", sip: "{ kamailio: true }").get()
        XCTAssertEqual(ws.device.sip?.transport, .ws)
        XCTAssertTrue(SIPDeviceSpec.Transport.ws.isConnection)
        XCTAssertFalse(SIPDeviceSpec.Transport.ws.isSecure)
        let refused = messages(load("{ signaling: sip, transport: ws }", sip: "{ kamailio: true, ca: \"\(ca)\" }"))
        XCTAssertTrue(refused.contains("(the devices use ws)"), refused)
    }

    func testDatagramFaultsAreRefusedOverTLSAsOverTCP() {
        let faults = "faults:\n  - { name: lossy, at: 1s, for: 2s, sip: { loss: 10% } }"
        let text = messages(load("{ signaling: sip, transport: tls }", sip: "{ registrar: \"127.0.0.1:5061\" }",
                                 faults: faults))
        XCTAssertTrue(text.contains("'sip.loss' acts on UDP datagrams"), text)
    }
}
