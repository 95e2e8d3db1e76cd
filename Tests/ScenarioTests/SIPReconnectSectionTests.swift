import Scenario
import XCTest

/// `device.reconnect`, `reconnect_base`, `reconnect_max`: flow recovery on SIP devices' connections.
final class SIPReconnectSectionTests: XCTestCase {
    private func load(_ device: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip-reconnect
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: { kamailio: true } }
            device: \(device)
            mix: { incoming-1to1: 100 }
            """, file: "sip-reconnect.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testReconnectIsReadWithItsDefaultsAndNoneByDefault() throws {
        let plain = try load("{ signaling: sip, transport: tcp }").get()
        XCTAssertEqual(plain.device.sip?.reconnect.backoff, SIPDeviceSpec.Reconnect.Backoff.none)
        let exponential = try load("{ signaling: sip, transport: tls, reconnect: exponential }").get()
        XCTAssertEqual(exponential.device.sip?.reconnect.backoff, .exponential)
        XCTAssertEqual(exponential.device.sip?.reconnect.baseNanos, 1_000_000_000)
        XCTAssertEqual(exponential.device.sip?.reconnect.maxNanos, 30_000_000_000)
        let fixed = try load("{ signaling: sip, transport: wss, reconnect: fixed, reconnect_base: 250ms, "
                             + "reconnect_max: 5s }").get()
        XCTAssertEqual(fixed.device.sip?.reconnect.backoff, .fixed)
        XCTAssertEqual(fixed.device.sip?.reconnect.baseNanos, 250_000_000)
        XCTAssertEqual(fixed.device.sip?.reconnect.maxNanos, 5_000_000_000)
    }

    func testReconnectIsRefusedOverUDPAndWithAMaxBelowTheBase() {
        let udp = messages(load("{ signaling: sip, transport: udp, reconnect: exponential }"))
        XCTAssertTrue(udp.contains("sip-reconnect.yaml:5:"), udp)
        XCTAssertTrue(udp.contains("UDP devices hold none and register again at their refresh"), udp)
        let inverted = messages(load("{ signaling: sip, transport: tcp, reconnect: exponential, reconnect_base: 10s, "
                                     + "reconnect_max: 2s }"))
        XCTAssertTrue(inverted.contains("make it at least 'reconnect_base'"), inverted)
        let word = messages(load("{ signaling: sip, transport: tcp, reconnect: sometimes }"))
        XCTAssertTrue(word.contains("reconnect"), word)
    }
}
