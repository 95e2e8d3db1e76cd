import Scenario
import XCTest

/// `device.sockets`: per-device UDP sockets (the default) or one shared socket per worker, which carries UDP
/// devices that do not sleep only.
final class SIPSocketsSectionTests: XCTestCase {
    private func load(_ device: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip-sockets
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: { registrar: "127.0.0.1:5060" } }
            device: \(device)
            mix: { outgoing-1to1: 100 }
            """, file: "sip-sockets.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testSocketsAreReadAndDefaultToOnePerDevice() throws {
        XCTAssertEqual(try load("{ signaling: sip }").get().device.sip?.sockets, .device)
        XCTAssertEqual(try load("{ signaling: sip, sockets: device }").get().device.sip?.sockets, .device)
        let shared = try load("{ signaling: sip, transport: udp, sockets: shared }").get()
        XCTAssertEqual(shared.device.sip?.sockets, .shared)
    }

    func testASharedSocketOverAConnectionIsRefusedAtItsPlace() {
        let text = messages(load("{ signaling: sip, transport: tcp, sockets: shared }"))
        XCTAssertTrue(text.contains("sip-sockets.yaml:5:52"), text)
        XCTAssertTrue(text.contains("it applies with 'transport: udp' (the devices use tcp)"), text)
    }

    func testASharedSocketForSleepingDevicesIsRefusedAtItsPlace() {
        for sleep in ["true", "50%"] {
            let text = messages(load("{ signaling: sip, sleep: \(sleep), sockets: shared }"))
            XCTAssertTrue(text.contains("sip-sockets.yaml:5:"), text)
            XCTAssertTrue(text.contains("'device.sockets: shared' cannot carry sleeping devices"), text)
        }
    }

    func testSocketsApplyToSIPDevicesOnlyAndTakeTwoWords() {
        XCTAssertTrue(messages(load("{ signaling: http, sockets: shared }")).contains("applies to SIP devices"))
        let text = messages(load("{ signaling: sip, sockets: many }"))
        XCTAssertTrue(text.contains("sip-sockets.yaml:5:"), text)
        XCTAssertTrue(text.contains("device") && text.contains("shared"), text)
    }

    func testCoalesceIsReadWithUnitsDefaultsTo300usAndZeroTurnsItOff() throws {
        let shared = "{ signaling: sip, transport: udp, sockets: shared"
        XCTAssertEqual(try load(shared + " }").get().device.sip?.coalesceNanos, 300_000)
        XCTAssertEqual(try load(shared + ", coalesce: 500us }").get().device.sip?.coalesceNanos, 500_000)
        XCTAssertEqual(try load(shared + ", coalesce: 1ms }").get().device.sip?.coalesceNanos, 1_000_000)
        XCTAssertEqual(try load(shared + ", coalesce: 0 }").get().device.sip?.coalesceNanos, 0)
        XCTAssertEqual(try load(shared + ", coalesce: 0us }").get().device.sip?.coalesceNanos, 0)
    }

    func testACoalesceOver10msOrWithoutAUnitIsRefusedAtItsPlace() {
        let long = messages(load("{ signaling: sip, sockets: shared, coalesce: 20ms }"))
        XCTAssertTrue(long.contains("sip-sockets.yaml:5:"), long)
        XCTAssertTrue(long.contains("'device.coalesce'") && long.contains("at most 10ms"), long)
        XCTAssertTrue(long.contains("got '20ms'"), long)
        let bare = messages(load("{ signaling: sip, sockets: shared, coalesce: 300 }"))
        XCTAssertTrue(bare.contains("sip-sockets.yaml:5:") && bare.contains("add a unit"), bare)
    }

    func testCoalesceAppliesToASharedSocketOnly() {
        let text = messages(load("{ signaling: sip, coalesce: 300us }"))
        XCTAssertTrue(text.contains("it applies with 'sockets: shared'"), text)
        XCTAssertTrue(messages(load("{ signaling: http, coalesce: 300us }")).contains("applies to SIP devices"))
    }
}
