import XCTest
@testable import Scenario

/// `media:` (issue 34): RTP on a seeded share of SIP calls; absent, no media.
final class MediaSectionTests: XCTestCase {
    private let sip = """
        name: m
        seed: 26
        devices: 4
        target: { sip: { registrar: "127.0.0.1:5060" } }
        device: { signaling: sip }
        load:
          - hold: { rate: 10/s, for: 2s }

        """

    private func load(_ yaml: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(yaml, file: "media.yaml")
    }

    func testMediaIsAbsentByDefaultAndReadWithItsKeys() throws {
        XCTAssertNil(try load(sip).get().media, "no media: key, no media")
        let media = try load(sip + "media: { share: 10%, one_way_after: 500ms, ports: 20000-29999 }\n").get().media
        XCTAssertEqual(media, MediaSpec(share: 0.1, oneWayAfterNanos: 500_000_000, ports: 20_000...29_999))
        XCTAssertEqual(try load(sip + "media: {}\n").get().media, MediaSpec(), "every call, 1 s, ephemeral ports")
    }

    func testMediaErrorsNameTheirPlace() {
        guard case .failure(let errors) = load(sip + "media: { share: 150, ports: 30000-2000, one_way: 1s }\n") else {
            return XCTFail("expected errors")
        }
        let text = errors.description
        XCTAssertTrue(text.contains("media.yaml:8:"), text)
        XCTAssertTrue(text.contains("'media.share' is a probability from 0 to 1"), text)
        XCTAssertTrue(text.contains("'media.ports' must be two ports from 1024 to 65535"), text)
        XCTAssertTrue(text.contains("unknown key 'one_way'"), text)
        let http = sip.replacingOccurrences(of: "device: { signaling: sip }\n", with: "")
            .replacingOccurrences(of: "target: { sip: { registrar: \"127.0.0.1:5060\" } }\n", with: "")
        guard case .failure(let noSIP) = load(http + "media: { share: 10% }\n") else {
            return XCTFail("media without SIP devices must fail")
        }
        XCTAssertTrue(noSIP.description.contains("'media' sends RTP on SIP calls; it needs SIP devices"),
                      noSIP.description)
        guard case .failure(let ports) = load(sip + "media: { ports: lots }\n") else { return XCTFail("ports") }
        XCTAssertTrue(ports.description.contains("expected 'media.ports' as a range of UDP ports"), ports.description)
    }

    /// The draw is per call and seed: a share picks about that share of calls, the same ones every time, and 0%
    /// and 100% are exact.
    func testTheShareIsASeededPerCallDraw() {
        let tenth = MediaSpec(share: 0.1)
        let picked = (0..<10_000).filter { tenth.carries(call: $0, seed: 26) }
        XCTAssertEqual(Double(picked.count), 1_000, accuracy: 100, "about a tenth")
        XCTAssertEqual(picked, (0..<10_000).filter { tenth.carries(call: $0, seed: 26) }, "the same calls again")
        XCTAssertNotEqual(picked, (0..<10_000).filter { tenth.carries(call: $0, seed: 27) }, "another seed, others")
        XCTAssertFalse((0..<1_000).contains { MediaSpec(share: 0).carries(call: $0, seed: 26) })
        XCTAssertTrue((0..<1_000).allSatisfy { MediaSpec(share: 1).carries(call: $0, seed: 26) })
    }
}
