import Determinism
import XCTest

final class ClockOffsetEstimateTests: XCTestCase {
    /// `answers` answers `spacing` seconds apart from a reference `offset` seconds ahead, each taking `roundTrip`.
    private func estimate(offset: Double, answers: Int, spacing: Double = 0.020, roundTrip: Double = 0.002)
        -> ClockOffsetEstimate {
        var estimate = ClockOffsetEstimate()
        for k in 0..<answers {
            let sent = 1_000.0 + Double(k) * spacing
            let received = sent + roundTrip
            let referenceSecond = ((sent + received) / 2 + offset).rounded(.down)
            estimate.add(sentSeconds: sent, receivedSeconds: received, referenceSecond: referenceSecond)
        }
        return estimate
    }

    func testAnswersAcrossASecondBoundaryFindTheOffsetWithinTheirSpacing() throws {
        let e = estimate(offset: 5.3, answers: 70)
        XCTAssertEqual(e.samples, 70)
        XCTAssertEqual(try XCTUnwrap(e.offsetSeconds), 5.3, accuracy: 0.021)
        XCTAssertLessThan(try XCTUnwrap(e.uncertaintySeconds), 0.02)
    }

    func testOneAnswerLeavesAOneSecondWindow() throws {
        let e = estimate(offset: -2.25, answers: 1)
        XCTAssertEqual(try XCTUnwrap(e.uncertaintySeconds), 0.5 + 0.001, accuracy: 1e-9)
        XCTAssertLessThanOrEqual(abs(try XCTUnwrap(e.offsetSeconds) + 2.25), 0.5)
    }

    func testNoAnswerNoEstimate() {
        XCTAssertNil(ClockOffsetEstimate().offsetSeconds)
        XCTAssertNil(ClockOffsetEstimate().uncertaintySeconds)
    }

    func testAReferenceThatStepsBetweenAnswersWidensTheWindowInsteadOfInvertingIt() throws {
        var e = ClockOffsetEstimate()
        e.add(sentSeconds: 10, receivedSeconds: 10, referenceSecond: 15)  // offset in [5, 6)
        e.add(sentSeconds: 11, receivedSeconds: 11, referenceSecond: 18)  // offset in [7, 8): the reference stepped
        XCTAssertEqual(try XCTUnwrap(e.offsetSeconds), 6.5, accuracy: 1e-9)
        XCTAssertGreaterThan(try XCTUnwrap(e.uncertaintySeconds), 0)
    }
}
