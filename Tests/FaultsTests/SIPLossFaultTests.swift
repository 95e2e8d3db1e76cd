import Faults
import XCTest

final class SIPLossFaultTests: XCTestCase {
    private let invite = SIPDatagram(label: "INVITE", sending: true)

    private func decide(_ sip: SIPFaults, _ datagram: SIPDatagram, seq: UInt64, flow: String? = "f",
                        windows: [FaultWindow]? = nil) -> (action: SIPMessageAction, note: FaultNote)? {
        let schedule = FaultSchedule(windows: windows ?? [FaultFixtures.window(sip: sip, name: "lossy")],
                                     seed: FaultFixtures.seed)
        return schedule.sipMessageDecision(datagram, device: 9, seq: seq, sinceLoad: 1_000, flow: flow)
    }

    func testAboutItsShareOfDatagramsIsLostEachDecidedByItsOwnNumber() {
        let sip = FaultFixtures.sip { $0.loss = 0.2 }
        var lost = 0
        for seq in UInt64(1)...1_000 {
            let hit = decide(sip, invite, seq: seq)
            if let hit {
                lost += 1
                XCTAssertEqual(hit.action, .drop)
                XCTAssertEqual(hit.note, FaultNote(window: "lossy", kind: SIPLossFault.lost))
            }
            // The same datagram number decides the same, run after run.
            XCTAssertEqual(decide(sip, invite, seq: seq)?.action, hit?.action, "seq \(seq)")
        }
        XCTAssertGreaterThan(lost, 150)
        XCTAssertLessThan(lost, 250)
    }

    func testADirectionAndAMessageFilterNarrowWhatIsLost() {
        let sip = FaultFixtures.sip {
            $0.loss = 1
            $0.direction = .receive
            $0.messages = ["200", "INVITE"]
        }
        XCTAssertNil(decide(sip, invite, seq: 1), "sent, and only received datagrams are lost")
        XCTAssertEqual(decide(sip, SIPDatagram(label: "INVITE", sending: false), seq: 1)?.action, .drop)
        XCTAssertEqual(decide(sip, SIPDatagram(label: "200", sending: false), seq: 2)?.action, .drop)
        XCTAssertNil(decide(sip, SIPDatagram(label: "ACK", sending: false), seq: 3), "not in the filter")
    }

    func testAWindowWithFlowsHitsOnlyDevicesInACallOfThem() {
        var w = FaultFixtures.window(sip: FaultFixtures.sip { $0.loss = 1 })
        w.flows = ["incoming-1to1"]
        XCTAssertNil(decide(SIPFaults(), invite, seq: 1, flow: nil, windows: [w]), "between calls")
        XCTAssertNil(decide(SIPFaults(), invite, seq: 1, flow: "outgoing", windows: [w]))
        XCTAssertEqual(decide(SIPFaults(), invite, seq: 1, flow: "incoming-1to1", windows: [w])?.action, .drop)
    }

    func testOutsideTheWindowAndWithoutLossNothingIsLost() {
        let schedule = FaultSchedule(windows: [FaultFixtures.window(sip: FaultFixtures.sip { $0.loss = 1 })],
                                     seed: 1)
        XCTAssertNil(schedule.sipMessageDecision(invite, device: 1, seq: 1, sinceLoad: 10_000_000_001, flow: nil))
        XCTAssertNil(SIPLossFault(window: FaultFixtures.window(sip: FaultFixtures.sip { $0.lostRegister = 1 })))
        XCTAssertFalse(FaultSchedule(windows: [FaultFixtures.window()], seed: 1).hasSIPMessageFaults)
        XCTAssertTrue(schedule.hasSIPMessageFaults)
    }
}
