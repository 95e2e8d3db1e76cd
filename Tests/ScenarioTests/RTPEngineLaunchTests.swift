import Foundation
import Scenario
import XCTest

/// `target.sip.rtpengine`: a media relay the run starts beside the Kamailio it starts, with the broken Kamailio
/// variants tests use; refused beside a `registrar` already running, each problem at its place.
final class RTPEngineLaunchTests: XCTestCase {
    private func load(_ sip: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: relay
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: \(sip) }
            device: { signaling: sip }
            push: { listen: "127.0.0.1:0", tls: false }
            mix: { outgoing-1to1: 100 }
            """, file: "relay.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testTrueAndAVariantAreReadAndFalseOrAbsentStartsNone() throws {
        XCTAssertEqual(try load("{ kamailio: true, rtpengine: true }").get().sip?.rtpengine, RTPEngineLaunchSpec())
        XCTAssertEqual(try load("{ kamailio: true, rtpengine: { variant: lost_answer } }").get().sip?.rtpengine,
                       RTPEngineLaunchSpec(variant: .lostAnswer))
        XCTAssertEqual(try load("{ kamailio: true, rtpengine: { variant: offer_only } }").get().sip?.rtpengine,
                       RTPEngineLaunchSpec(variant: .offerOnly))
        XCTAssertNil(try load("{ kamailio: true, rtpengine: false }").get().sip?.rtpengine)
        XCTAssertNil(try load("{ kamailio: true }").get().sip?.rtpengine)
        let sip = try XCTUnwrap(try load("{ kamailio: true, rtpengine: { variant: lost_answer } }").get().sip)
        XCTAssertTrue(sip.summary(devicesSleep: false).contains(
            "media through an rtpengine the run starts (variant lost_answer)"), sip.summary(devicesSleep: false))
    }

    func testARelayBesideARunningRegistrarAndAnUnknownVariantAreRefusedAtTheirPlace() {
        let registrar = messages(load("{ registrar: \"127.0.0.1:5060\", rtpengine: true }"))
        XCTAssertTrue(registrar.contains("relay.yaml:4:"), registrar)
        XCTAssertTrue(registrar.contains("'rtpengine' starts a media relay for the Kamailio the run starts"),
                      registrar)
        let variant = messages(load("{ kamailio: true, rtpengine: { variant: sideways } }"))
        XCTAssertTrue(variant.contains("relay.yaml:4:"), variant)
        XCTAssertTrue(variant.contains("lost_answer"), variant)
        let key = messages(load("{ kamailio: true, rtpengine: { port: 2223 } }"))
        XCTAssertTrue(key.contains("port"), key)
    }
}
