import XCTest
@testable import Scenario
import Faults

/// SIP faults in a window (`sip: { loss, delay, direction, messages, late_wake, lost_register }`), and every
/// mistake at its file:line:column.
extension FaultSectionTests {
    /// A 10 s run of SIP devices with `device`; the one window `window` is line 8.
    private func sipScenario(_ window: String, device: String = "signaling: sip, sleep: true, transport: udp",
                             target: String = "target: { sip: { registrar: \"127.0.0.1:5060\" } }") -> String {
        """
        name: sip
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        \(target)
        device: { \(device) }
        faults:
        \(window)
        """
    }

    /// Where `key` starts in the window line (line 8), 1-based.
    private func at(_ key: String, in window: String, occurrence: Int = 1) -> Mark {
        var rest = window[...]
        var column = 0
        for _ in 0..<occurrence {
            let range = rest.range(of: key)!
            column = window.distance(from: window.startIndex, to: range.lowerBound) + 1
            rest = rest[range.upperBound...]
        }
        return Mark(line: 8, column: column)
    }

    func testASIPWindowReadsLossDelayDirectionMessagesAndTheWakeFaults() throws {
        let s = try load(sipScenario("""
              - { at: 1s, for: 2s, sip: { loss: 10%, delay: { uniform: [10ms, 50ms] }, direction: receive, \
            messages: [invite, 200], late_wake: { probability: 50%, after: 12s }, lost_register: 0.2 } }
            """)).get()
        var expected = SIPFaults()
        expected.loss = 0.1
        expected.delay = .uniform(10_000_000, 50_000_000)
        expected.direction = .receive
        expected.messages = ["INVITE", "200"]
        expected.lateWake = LateWakeFaults(probability: 0.5, after: .constant(12_000_000_000))
        expected.lostRegister = 0.2
        XCTAssertEqual(s.faults.first?.sip, expected)
    }

    func testBadSIPFaultSettingsAreErrorsAtTheirPositions() {
        let window = "  - { at: 1s, for: 2s, sip: { loss: 150%, direction: sideways, messages: [INVTE, 99], "
            + "late_wake: { probability: 50% } } }"
        let found = errors(sipScenario(window))
        XCTAssertEqual(found.map(\.mark), [at("150%", in: window), at("sideways", in: window),
                                           at("INVTE", in: window), at("99", in: window),
                                           at("{ probability", in: window)], "\(found)")
        XCTAssertEqual(found[2].suggestion, "INVITE")
        XCTAssertTrue(found[4].description.contains("after"), found[4].description)
    }

    func testAFilterWithoutLossOrDelayIsAnError() {
        let window = "  - { at: 1s, for: 2s, sip: { lost_register: 10%, direction: send } }"
        let found = errors(sipScenario(window))
        XCTAssertEqual(found.map(\.mark), [at("send", in: window)], "\(found)")
        XCTAssertTrue(found[0].message.contains("narrows 'loss' and 'delay'"), found[0].message)
    }

    func testSIPFaultsNeedSIPDevicesUDPForLossAndSleepingDevicesForTheWakeFaults() {
        let loss = "  - { at: 1s, for: 2s, sip: { loss: 10% } }"
        let http = errors(sipScenario(loss, device: "socket: none", target: "seed: 1"))
        XCTAssertEqual(http.map(\.mark), [at("{ loss", in: loss)], "\(http)")
        XCTAssertTrue(http[0].message.contains("signaling: sip"), http[0].message)

        let tcp = errors(sipScenario(loss, device: "signaling: sip, transport: tcp"))
        XCTAssertEqual(tcp.map(\.mark), [at("loss", in: loss)], "\(tcp)")
        XCTAssertTrue(tcp[0].message.contains("UDP"), tcp[0].message)
        let lostOverTCP = "  - { at: 1s, for: 2s, sip: { lost_register: 5%, late_wake: { after: 3s } } }"
        let found = errors(sipScenario(lostOverTCP, device: "signaling: sip, sleep: true, transport: tcp"))
        XCTAssertEqual(found.map(\.mark), [at("lost_register", in: lostOverTCP)], "late_wake is fine: \(found)")

        let wake = "  - { at: 1s, for: 2s, sip: { late_wake: { after: 3s }, lost_register: 5% } }"
        let awake = errors(sipScenario(wake, device: "signaling: sip"))
        XCTAssertEqual(awake.map(\.mark), [at("late_wake", in: wake), at("lost_register", in: wake)], "\(awake)")
        XCTAssertTrue(awake[0].message.contains("sleep: true"), awake[0].message)
    }
}
