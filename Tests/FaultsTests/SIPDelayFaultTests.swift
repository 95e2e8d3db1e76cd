import Faults
import Quantities
import XCTest

final class SIPDelayFaultTests: XCTestCase {
    func testEveryMatchingDatagramIsHeldForItsOwnSeededSample() {
        let delay = Distribution.uniform(100_000_000, 900_000_000)
        let sip = FaultFixtures.sip {
            $0.delay = delay
            $0.direction = .send
        }
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: sip, name: "slow")], seed: 7)
        var samples = Set<UInt64>()
        for seq in UInt64(1)...50 {
            let hit = schedule.sipMessageDecision(SIPDatagram(label: "BYE", sending: true), device: 3, seq: seq,
                                                  sinceLoad: 5, flow: nil)
            guard case .delay(let nanos)? = hit?.action else {
                return XCTFail("seq \(seq): \(String(describing: hit))")
            }
            XCTAssertTrue((100_000_000...900_000_000).contains(nanos))
            XCTAssertEqual(hit?.note, FaultNote(window: "slow", kind: SIPDelayFault.delayed))
            samples.insert(nanos)
        }
        XCTAssertGreaterThan(samples.count, 40, "each datagram draws its own delay")
        XCTAssertNil(schedule.sipMessageDecision(SIPDatagram(label: "200", sending: false), device: 3, seq: 1,
                                                 sinceLoad: 5, flow: nil), "received: not delayed")
    }

    func testALossDecidesBeforeADelayInTheSameWindow() {
        let sip = FaultFixtures.sip {
            $0.loss = 1
            $0.delay = .constant(1_000_000)
        }
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: sip)], seed: 7)
        let hit = schedule.sipMessageDecision(SIPDatagram(label: "ACK", sending: true), device: 3, seq: 1,
                                              sinceLoad: 5, flow: nil)
        XCTAssertEqual(hit?.action, .drop)
    }
}
