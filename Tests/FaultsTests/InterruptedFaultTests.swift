import Faults
import XCTest

final class InterruptedFaultTests: XCTestCase {
    private func schedule(_ interruption: Interruption) -> FaultSchedule {
        let w = FaultFixtures.window(device: FaultFixtures.device {
            $0.life.interrupted = 0.5
            $0.life.interruption = interruption
            $0.life.after = .constant(300_000_000)
        })
        return FaultSchedule(windows: [w], seed: FaultFixtures.seed)
    }

    /// Hits the connected call parts its stream draws, `life_after` later; `hold` and `end` are what they say, and
    /// `either` draws both (each part's choice from the seed); never as a call rings.
    func testHitsTheConnectedPartsItsStreamDrawsAndHoldsOrEndsAsSet() {
        var kinds: [String: Int] = [:]
        for call in 0..<200 {
            let subject = FaultSchedule.subject(call: call, role: 0)
            let expected = schedule(.either).draw(0, subject, 0, InterruptedFault.stream) < 0.5
            for interruption in Interruption.allCases {
                let hit = schedule(interruption).lifeEvent(at: .connected, device: 3, subject: subject,
                                                           plannedSinceLoad: 1, flow: "f")
                XCTAssertEqual(hit != nil, expected, "call \(call)")
                guard let hit else { continue }
                XCTAssertEqual(hit.afterNanos, 300_000_000)
                XCTAssertEqual(hit.note.kind, hit.event.faultKind)
                switch interruption {
                case .hold: XCTAssertEqual(hit.event, .interrupted(hold: true))
                case .end: XCTAssertEqual(hit.event, .interrupted(hold: false))
                case .either: kinds[hit.note.kind, default: 0] += 1
                }
            }
            XCTAssertNil(schedule(.either).lifeEvent(at: .ringing, device: 3, subject: subject, plannedSinceLoad: 1,
                                                     flow: "f"))
        }
        XCTAssertEqual(Set(kinds.keys), ["device.interrupted_hold", "device.interrupted_end"], "\(kinds)")
    }
}
