import XCTest
@testable import Scenario
import Faults

/// RTP faults in a window's `sip:` section (`media_loss`, `media_delay`, `media_direction`, `media_one_way`), and
/// every mistake at its file:line:column.
extension FaultSectionTests {
    /// SIP devices with `media:` (unless `media` is empty); the one window is line 8.
    private func mediaScenario(_ window: String, media: String = "media: { share: 100% }") -> String {
        """
        name: sip-media
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        target: { sip: { registrar: "127.0.0.1:5060" } }
        device: { signaling: sip, transport: tcp }
        faults:
        \(window)
        \(media)
        """
    }

    private func column(_ key: String, in window: String) -> Mark {
        Mark(line: 8, column: window.distance(from: window.startIndex, to: window.range(of: key)!.lowerBound) + 1)
    }

    func testAWindowReadsTheMediaFaultsEvenOverTCPSignalling() throws {
        let s = try load(mediaScenario("""
              - { at: 1s, for: 2s, sip: { media_loss: 5%, media_delay: { uniform: [0ms, 40ms] }, \
            media_direction: caller_to_callee, media_one_way: callee_to_caller } }
            """)).get()
        var expected = SIPFaults()
        expected.mediaLoss = 0.05
        expected.mediaDelay = .uniform(0, 40_000_000)
        expected.mediaDirection = .callerToCallee
        expected.mediaOneWay = .calleeToCaller
        XCTAssertEqual(s.faults.first?.sip, expected)
    }

    func testBadMediaFaultSettingsAreErrorsAtTheirPositions() {
        let window = "  - { at: 1s, for: 2s, sip: { media_one_way: sideways, media_direction: both } }"
        let found = errors(mediaScenario(window))
        XCTAssertEqual(found.map(\.mark), [column("sideways", in: window), column("both", in: window)], "\(found)")
        XCTAssertTrue(found[1].message.contains("narrows 'media_loss' and 'media_delay'"), found[1].message)

        let noMedia = "  - { at: 1s, for: 2s, sip: { media_loss: 5% } }"
        let missing = errors(mediaScenario(noMedia, media: ""))
        XCTAssertEqual(missing.map(\.mark), [column("media_loss", in: noMedia)], "\(missing)")
        XCTAssertTrue(missing[0].message.contains("'media:'"), missing[0].message)
    }
}
