import Faults
import XCTest

/// The RTP faults (`sip: { media_one_way, media_loss, media_delay, media_direction }`): each acts on its direction
/// only, a silenced direction decides before loss and delay, loss is its seeded share, and a window without them
/// makes none (no media filter is installed).
final class MediaFaultTests: XCTestCase {
    private func schedule(_ edit: (inout SIPFaults) -> Void) -> FaultSchedule {
        FaultSchedule(windows: [FaultFixtures.window(sip: FaultFixtures.sip(edit), name: "m")], seed: 5)
    }

    private func decide(_ s: FaultSchedule, towardCaller: Bool, seq: UInt64 = 1) -> (SIPMessageAction, FaultNote)? {
        s.mediaPacketDecision(MediaPacket(towardCaller: towardCaller), device: 1, seq: seq, sinceLoad: 2, flow: "f")
            .map { ($0.action, $0.note) }
    }

    func testAOneWayWindowDropsEveryPacketOfItsDirectionAndNoneOfTheOther() {
        let s = schedule { $0.mediaOneWay = .calleeToCaller; $0.mediaLoss = 1 }
        XCTAssertTrue(s.hasMediaFaults)
        for seq in 1...50 as ClosedRange<UInt64> {
            let hit = decide(s, towardCaller: true, seq: seq)
            XCTAssertEqual(hit?.0, .drop)
            XCTAssertEqual(hit?.1, FaultNote(window: "m", kind: MediaOneWayFault.dropped), "decided before loss")
        }
        XCTAssertEqual(decide(s, towardCaller: false)?.1.kind, MediaLossFault.lost, "the other way only loses")
    }

    func testLossHitsItsShareOfOneDirectionFromTheSeed() {
        let s = schedule { $0.mediaLoss = 0.2; $0.mediaDirection = .callerToCallee }
        let hits = (1...1_000 as ClosedRange<UInt64>).filter { decide(s, towardCaller: false, seq: $0) != nil }
        XCTAssertTrue((150...250).contains(hits.count), "\(hits.count)")
        XCTAssertNil(decide(s, towardCaller: true), "toward the caller untouched")
        let again = (1...1_000 as ClosedRange<UInt64>).filter { decide(s, towardCaller: false, seq: $0) != nil }
        XCTAssertEqual(hits, again, "the same packets every time")
    }

    func testDelayDelaysEveryPacketByItsDistribution() {
        let s = schedule { $0.mediaDelay = .constant(30_000_000) }
        XCTAssertEqual(decide(s, towardCaller: true)?.0, .delay(nanos: 30_000_000))
        XCTAssertEqual(decide(s, towardCaller: false)?.1.kind, MediaDelayFault.delayed)
    }

    func testAWindowWithoutMediaFaultsMakesNone() {
        let s = schedule { $0.loss = 0.5 }
        XCTAssertFalse(s.hasMediaFaults)
        XCTAssertNil(decide(s, towardCaller: true))
        XCTAssertEqual(MediaFaultDirection.both.covers(towardCaller: true), true)
        XCTAssertEqual(MediaFaultDirection.callerToCallee.covers(towardCaller: true), false)
    }
}
