@testable import SIPClient
import XCTest

/// A shared-socket datagram's arrival on the pool's monotonic clock from its kernel stamp (CLOCK_REALTIME): its age
/// taken off the read's time, whatever the offset between the clocks; the read's time when no stamp can be trusted.
final class ReceiveStampTests: XCTestCase {
    private let real: UInt64 = 1_765_000_000_000_000_000  // a real-time clock in 2025, far from the monotonic one

    func testTheArrivalIsTheReadsTimeLessTheDatagramsAge() {
        let arrival = ReceiveStamp.arrival(stamp: real - 250_000, realNow: real, now: 9_000_000, floor: 0)
        XCTAssertEqual(arrival, 8_750_000)
    }

    func testAMissingOrFutureOrImplausiblyOldStampGivesTheReadsTime() {
        XCTAssertEqual(ReceiveStamp.arrival(stamp: 0, realNow: real, now: 9_000_000, floor: 0), 9_000_000)
        XCTAssertEqual(ReceiveStamp.arrival(stamp: real + 1, realNow: real, now: 9_000_000, floor: 0), 9_000_000)
        let old = real - ReceiveStamp.maxAgeNanos - 1
        XCTAssertEqual(ReceiveStamp.arrival(stamp: old, realNow: real, now: 5_000_000_000, floor: 0), 5_000_000_000)
    }

    func testAnArrivalIsNeverBeforeTheFloorNorAfterTheRead() {
        XCTAssertEqual(ReceiveStamp.arrival(stamp: real - 500_000, realNow: real, now: 9_000_000, floor: 8_800_000),
                       8_800_000)
        XCTAssertEqual(ReceiveStamp.arrival(stamp: real - 500_000, realNow: real, now: 9_000_000, floor: 9_500_000),
                       9_000_000)
    }

    func testAnAgeLongerThanTheMonotonicClockHasRunGivesTheReadsTime() {
        XCTAssertEqual(ReceiveStamp.arrival(stamp: real - 2_000, realNow: real, now: 1_000, floor: 0), 1_000)
    }
}
