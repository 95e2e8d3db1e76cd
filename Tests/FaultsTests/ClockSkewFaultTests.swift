import Faults
import XCTest

final class ClockSkewFaultTests: XCTestCase {
    func testEachDeviceIsOffByTheLegacyDrawWithinThePlusOrMinusSkew() {
        let w = FaultFixtures.window(device: FaultFixtures.device { $0.clockSkewNanos = 2_000_000_000 })
        let schedule = FaultSchedule(windows: [w], seed: FaultFixtures.seed)
        XCTAssertTrue(schedule.hasClockSkew)
        for device in 0..<100 {
            let legacy = Int64(((FaultFixtures.legacyDraw(0, device, 0, 0xC10C) * 2 - 1) * 2_000).rounded())
            let skew = schedule.clockSkew(at: 1_000, device: device, flow: nil)
            XCTAssertEqual(skew?.offsetMillis, legacy)
            XCTAssertLessThanOrEqual(abs(legacy), 2_000)
            XCTAssertEqual(skew?.note.kind, "device.clock_skewed")
        }
        XCTAssertEqual(ClockSkewFault.subject(device: 7, offsetMillis: 120), "dev-7(+120ms)")
        XCTAssertEqual(ClockSkewFault.subject(device: 7, offsetMillis: -3), "dev-7(-3ms)")
    }

    func testTheBareSaltDrawTheDriverStillUsesIsTheNamedStreamsDraw() {
        let schedule = FaultSchedule(windows: [], seed: 9)
        XCTAssertEqual(schedule.draw(1, 2, 0, 0xC10C), schedule.draw(1, 2, 0, DrawStream.clockSkew))
    }
}
