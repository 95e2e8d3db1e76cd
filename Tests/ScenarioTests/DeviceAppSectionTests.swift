import Metrics
import XCTest
@testable import Scenario

/// The `device:` keys of docs/LCK.md (`on_voip_without_call`, …) and their thresholds: read, defaulted, and
/// every mistake reported with its position and a suggestion.
final class DeviceAppSectionTests: XCTestCase {
    private func load(_ rest: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: lck\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + rest,
                             file: "lck.yaml")
    }

    func testOnVoIPWithoutCallDefaultsToReportAndEndAndTerminateIsRead() throws {
        XCTAssertEqual(try load("").get().device.onVoIPWithoutCall, .reportAndEnd)
        XCTAssertEqual(try load("device: { on_voip_without_call: terminate }\n").get().device.onVoIPWithoutCall,
                       .terminate)
    }

    func testAMisspeltChoiceOrKeyIsReportedWithASuggestion() {
        guard case .failure(let errors) = load("device: { on_voip_without_call: terminated, on_voip_without_cal: x }\n")
        else { return XCTFail("expected errors") }
        let text = errors.description
        XCTAssertTrue(text.contains("lck.yaml:4:33: error: 'on_voip_without_call' must be one of report_and_end, "
            + "terminate, got 'terminated'"), text)
        XCTAssertTrue(text.contains("did you mean 'terminate'?"), text)
        XCTAssertTrue(text.contains("unknown key 'on_voip_without_cal'"), text)
        XCTAssertTrue(text.contains("did you mean 'on_voip_without_call'?"), text)
    }

    private let api = """
        target:
          url: "http://127.0.0.1:9000"
          api:
            register: { method: POST, path: /devices }
            start: { method: POST, path: /calls, capture: { conversation.id: "$.id" } }
            end: { method: POST, path: "/calls/${conversation.id}/end" }
            join: { method: POST, path: "/calls/${conversation.id}/join" }

        """

    func testCapabilitiesAndTheirWordsAreReadFromViewsAndPushes() throws {
        let mapping = try XCTUnwrap(load(api + """
                view: { id: "$.id", members: "$.people", member: { id: "$.u", status: "$.s" }, capabilities: "$.can",
                        capability_words: { merging: [merge, join_calls] } }
                push: { conversation: "$.id", capabilities: "$.caps", capability_words: { pausing: [hold] } }

            """).get().api)
        XCTAssertEqual(mapping.view?.capabilities, "$.can")
        XCTAssertEqual(mapping.view?.capabilityWords, ["merging": ["merge", "join_calls"]])
        XCTAssertEqual(mapping.push.capabilityWords, ["pausing": ["hold"]])
        XCTAssertEqual(CapabilityWords.lck(["join_calls", "video"], ["merging": ["merge", "join_calls"]]),
                       ["merging", "video"])
    }

    func testACapabilityWordMapNamesLCKCapabilitiesOnly() {
        guard case .failure(let errors) = load(api + """
                push: { conversation: "$.id", capability_words: { pauses: [hold] } }

            """) else { return XCTFail("expected errors") }
        let text = errors.description
        XCTAssertTrue(text.contains("lck.yaml:11:55: error: unknown key 'pauses' in 'target.api.push.capability_words'; "
            + "expected one of: pausing, merging, unmerging, video, playingTones"), text)
    }

    func testHandleSharesAndSupportedKindsAreRead() throws {
        let device = try load("device: { handles: { phone: 70%, email: 20%, generic: 10% }, "
            + "supported_handles: [phone, email] }\n").get().device
        XCTAssertEqual(device.handles.shares, [0.7, 0.2, 0.1])
        XCTAssertEqual(device.handles.supported, ["phone", "email"])
        XCTAssertEqual(try load("").get().device.handles, HandleMix())
    }

    func testHandleMistakesAreReportedWithPositions() {
        guard case .failure(let errors) = load("device: { handles: { phone: 70%, mail: 20% }, "
            + "supported_handles: [phone, emial] }\n") else { return XCTFail("expected errors") }
        let text = errors.description
        XCTAssertTrue(text.contains("unknown key 'mail' in 'device.handles'"), text)
        XCTAssertTrue(text.contains("'supported_handles' must be one of phone, email, generic, got 'emial'"), text)
        XCTAssertTrue(text.contains("did you mean 'email'?"), text)
        guard case .failure(let sum) = load("device: { handles: { phone: 70%, email: 20% } }\n") else {
            return XCTFail("shares must add up")
        }
        XCTAssertTrue(sum.description.contains("lck.yaml:4:20: error: 'device.handles' shares must add up to 100%, "
            + "got 90%"), sum.description)
    }

    func testVoIPWithoutCallRateIsAThresholdOverVoIPPushesReceived() throws {
        let slo = try load("slo: { voip_without_call_rate: \"< 1%\" }\n").get().slo
        XCTAssertEqual(slo.first?.subject, .ratio(.voipWithoutCallRate))
        let ratios = RunRatios(counters: [MetricName.pushesVoIPWithoutCall: 3, "pushes.received.voip": 200])
        XCTAssertEqual(ratios.voipWithoutCallRate, 0.015)
        XCTAssertNil(RunRatios(counters: [:]).voipWithoutCallRate)
        XCTAssertFalse(slo[0].evaluate(histograms: [:], counters: [MetricName.pushesVoIPWithoutCall: 3,
                                                                    "pushes.received.voip": 200]).passed)
    }
}
