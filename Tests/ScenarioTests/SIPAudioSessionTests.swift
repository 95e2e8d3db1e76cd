import Quantities
import Scenario
import XCTest

/// `device.join_at: media` and `device.audio_session`: read, and refused where they are written when the calls
/// carry no media (docs/MEDIA.md, "When a join is fulfilled").
final class SIPAudioSessionTests: XCTestCase {
    private func load(_ device: String, media: String = "media: {}") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: { registrar: "127.0.0.1:5070" } }
            device: \(device)
            mix: { outgoing-1to1: 100 }
            \(media)
            """, file: "sip.yaml")
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    /// The column (1-based) of `word` in the `device:` line as written.
    private func column(of word: String, in device: String) -> Int {
        let line = "device: \(device)"
        return line.distance(from: line.startIndex, to: line.range(of: word)!.lowerBound) + 1
    }

    func testJoinAtMediaAndTheAudioSessionAreReadBesideMedia() throws {
        let scenario = try load("{ signaling: sip, join_at: media, audio_session: { uniform: [20ms, 80ms] } }").get()
        XCTAssertEqual(scenario.device.sip?.joinAt, .media)
        XCTAssertEqual(scenario.device.sip?.joinAtAck, false)
        XCTAssertEqual(scenario.device.sip?.audioSession, .uniform(20_000_000, 80_000_000))
        let plain = try load("{ signaling: sip }").get().device.sip
        XCTAssertEqual(plain?.joinAt, .answer)
        XCTAssertNil(plain?.audioSession)
        XCTAssertEqual(try load("{ signaling: sip, join_at: ack }").get().device.sip?.joinAt, .ack)
    }

    func testJoinAtMediaWithoutMediaIsRefusedWhereItIsWritten() {
        let device = "{ signaling: sip, join_at: media }"
        let text = messages(load(device, media: ""))
        XCTAssertTrue(text.contains("sip.yaml:5:\(column(of: "media", in: device))"), text)
        XCTAssertTrue(text.contains("add 'media: { share: 100% }' or use 'join_at: answer'"), text)
    }

    func testAnAudioSessionWithoutMediaIsRefusedWhereItIsWritten() {
        let device = "{ signaling: sip, audio_session: 50ms }"
        let text = messages(load(device, media: ""))
        XCTAssertTrue(text.contains("sip.yaml:5:\(column(of: "50ms", in: device))"), text)
        XCTAssertTrue(text.contains("'device.audio_session' delays the callee's first RTP packet"), text)
    }

    func testTheKeysApplyToSIPDevicesOnlyAndJoinAtNamesItsWords() {
        let misspelt = messages(load("{ signaling: sip, join_at: medium }"))
        XCTAssertTrue(misspelt.contains("sip.yaml:5:"), misspelt)
        XCTAssertTrue(misspelt.contains("media"), misspelt)
        let http = messages(load("{ audio_session: 50ms }", media: ""))
        XCTAssertTrue(http.contains("'device.audio_session' applies to SIP devices"), http)
    }
}
