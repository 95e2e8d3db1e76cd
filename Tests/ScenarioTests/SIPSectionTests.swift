import Scenario
import XCTest

/// `device.signaling: sip` and `target.sip`: read, defaulted, and refused where SIP cannot serve the flow.
final class SIPSectionTests: XCTestCase {
    private func load(_ device: String, target: String = "{ sip: { registrar: \"127.0.0.1:5070\" } }",
                      extra: String = "") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: \(target)
            device: \(device)
            mix: { outgoing-1to1: 100 }
            \(extra)
            """, file: "sip.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testSIPDevicesAndTheirRegistrarAreRead() throws {
        let scenario = try load("{ signaling: sip, sleep: true, transport: tcp }",
                                target: "{ sip: { registrar: \"127.0.0.1:5070\", domain: example.test, "
                                    + "password: secret, expires: 120 } }").get()
        XCTAssertEqual(scenario.device.sip, SIPDeviceSpec(sleep: true, transport: .tcp))
        XCTAssertEqual(scenario.sip, SIPTargetSpec(host: "127.0.0.1", port: 5070, domain: "example.test",
                                                   password: "secret", expires: 120))
        XCTAssertEqual(scenario.target, .embedded)
    }

    /// `sleep: 50%` (issue 36): the share of devices that sleep, each device's own seeded draw.
    func testASleepShareIsReadAndAShareOutOfRangeIsRefusedAtItsPlace() throws {
        XCTAssertEqual(try load("{ signaling: sip, sleep: 50% }").get().device.sip?.sleepShare, 0.5)
        XCTAssertEqual(try load("{ signaling: sip, sleep: 0.25 }").get().device.sip?.sleep, true)
        XCTAssertEqual(try load("{ signaling: sip, sleep: true }").get().device.sip?.sleepShare, 1)
        for bad in ["150%", "0%", "2"] {
            let text = messages(load("{ signaling: sip, sleep: \(bad) }"))
            XCTAssertTrue(text.contains("sip.yaml:5:"), text)
            XCTAssertTrue(text.contains("the share of devices that sleep"), text)
        }
    }

    func testSIPDevicesDefaultToAwakeOverUDPAndTheDomainToTheRegistrarHost() throws {
        let scenario = try load("{ signaling: sip }").get()
        XCTAssertEqual(scenario.device.sip, SIPDeviceSpec(sleep: false, transport: .udp))
        XCTAssertEqual(scenario.sip?.domain, "127.0.0.1")
        XCTAssertEqual(scenario.sip?.password, "callstorm")
        XCTAssertNil(try load("{ signaling: http }", target: "{ embedded: true }").get().device.sip)
    }

    func testAWokenAppsDelayBeforeItsWakeRegisterIsReadForSleepingDevicesOnly() throws {
        let scenario = try load("{ signaling: sip, sleep: true, wake_after: { uniform: [0ms, 3ms] } }").get()
        XCTAssertEqual(scenario.device.sip?.wakeAfter, .uniform(0, 3_000_000))
        XCTAssertNil(try load("{ signaling: sip, sleep: true }").get().device.sip?.wakeAfter)
        let awake = messages(load("{ signaling: sip, wake_after: 20ms }"))
        XCTAssertTrue(awake.contains("sip.yaml:5:"), awake)
        XCTAssertTrue(awake.contains("add 'sleep: true' beside it"), awake)
        XCTAssertTrue(messages(load("{ wake_after: 20ms }", target: "{ embedded: true }"))
            .contains("'device.wake_after' applies to SIP devices"))
    }

    func testACalleesJoinIsFulfilledAtItsAnswerUnlessTheScenarioAsksForTheAck() throws {
        XCTAssertEqual(try load("{ signaling: sip }").get().device.sip?.joinAtAck, false)
        XCTAssertEqual(try load("{ signaling: sip, join_at: answer }").get().device.sip?.joinAtAck, false)
        XCTAssertEqual(try load("{ signaling: sip, join_at: ack }").get().device.sip?.joinAtAck, true)
        XCTAssertTrue(messages(load("{ signaling: sip, join_at: acked }")).contains("sip.yaml:5:"))
        XCTAssertTrue(messages(load("{ join_at: ack }", target: "{ embedded: true }"))
            .contains("'device.join_at' applies to SIP devices"))
    }

    func testAMisspeltTransportIsCorrectedWithItsPosition() {
        let text = messages(load("{ signaling: sip, transport: tpc }"))
        XCTAssertTrue(text.contains("sip.yaml:5:"), text)
        XCTAssertTrue(text.contains("tcp"), text)
    }

    func testARegistrarThatIsNotHostAndPortIsRefused() {
        let text = messages(load("{ signaling: sip }", target: "{ sip: { registrar: \"kamailio\" } }"))
        XCTAssertTrue(text.contains("'registrar' is the SIP server's IPv4 'host:port'"), text)
    }

    func testSIPDevicesWithoutARegistrarAndARegistrarWithoutSIPDevicesAreRefused() {
        XCTAssertTrue(messages(load("{ signaling: sip }", target: "{ embedded: true }"))
            .contains("'signaling: sip' needs 'target.sip'"))
        XCTAssertTrue(messages(load("{ video: false }")).contains("'target.sip' is driven by SIP devices"))
        XCTAssertTrue(messages(load("{ sleep: true }", target: "{ embedded: true }"))
            .contains("add 'signaling: sip' beside it"))
    }

    func testAMergeStepIsRefusedWhereItIsWritten() {
        let text = messages(load("{ signaling: sip }", extra: """
            flows:
              outgoing-1to1:
                roles: [a, b]
                steps:
                  - { name: dial, role: a, do: start, to: [b] }
                  - { name: other, role: a, do: start, to: [b], conversation: other }
                  - { name: fold, role: a, do: merge, with: other }
            """))
        XCTAssertTrue(text.contains("sip.yaml:13:"), text)
        XCTAssertTrue(text.contains("'do: merge' cannot run on SIP devices"), text)
    }

    func testABuiltInFlowThatMergesIsRefusedAtItsMixEntry() {
        let result = ScenarioLoader.parse("""
            name: sip
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: { registrar: "127.0.0.1:5070" } }
            device: { signaling: sip }
            mix: { group-merge: 100 }
            """, file: "sip.yaml")
        let text = messages(result)
        XCTAssertTrue(text.contains("sip.yaml:6:"), text)
        XCTAssertTrue(text.contains("which SIP devices cannot do"), text)
    }
}
