import Foundation
import Metrics
@testable import Reports
import XCTest

/// The redial storm's figures from a hand-made run: a kill from 3.5 s to 5 s, calls failing around it, redials
/// after it. Pins the baseline (seconds wholly before the kill), the recovered second (the first wholly after the
/// kill at or below the baseline), and the start fulfilment scoped to the storm's seconds.
final class StormFiguresTests: XCTestCase {
    private let start: UInt64 = 1_000_000_000_000

    /// `ended[s]` = (completed, failed) in second s; `redials[s]` redials; one start per second of `startMicros[s]`.
    private func result(ended: [(Int64, Int64)], redials: [Int64], startMicros: [Int64]) -> RunResult {
        var recorder = Recorder(runStartNanos: start)
        func at(_ s: Int) -> UInt64 { start + UInt64(s) * 1_000_000_000 + 100_000_000 }
        for (s, (completed, failed)) in ended.enumerated() {
            if completed > 0 { recorder.count(Metric(named: MetricName.callsCompleted), by: completed, atNanos: at(s)) }
            if failed > 0 { recorder.count(Metric(named: MetricName.callsFailed), by: failed, atNanos: at(s)) }
        }
        for (s, n) in redials.enumerated() where n > 0 {
            recorder.count(Metric(named: MetricName.redialsAfterDrop), by: n, atNanos: at(s))
            recorder.count(Metric(named: MetricName.redialsAfterDropPlanned), by: n, atNanos: at(s))
        }
        recorder.count(Metric(named: MetricName.redialsAfterDropSkipped), by: 2, atNanos: at(3))
        for (s, micros) in startMicros.enumerated() {
            recorder.record(Metric(named: MetricName.fulfillment("start")), micros: micros, atNanos: at(s))
        }
        recorder.seal()
        return RunResult(facts: ReportFixtures.facts(), recorder: recorder, verdict: Verdict(passed: true),
                         faultWindows: [FaultSpan(fromSecond: 3.5, toSecond: 5, label: "crash",
                                                    what: "target: kill (SIGKILL), restart at once")])
    }

    func testBaselineRecoveryAndStormScopedFulfilmentFollowTheKillWindow() throws {
        // Seconds 0–2 before the kill: 1 failure in 40 ended. Seconds 5 and 6, wholly after the kill (it ends at
        // 5 s), are still worse; second 7 is back at 2.5%.
        let run = result(ended: [(10, 0), (19, 1), (10, 0), (2, 8), (0, 10), (5, 5), (9, 1), (39, 1), (20, 0)],
                         redials: [0, 0, 0, 0, 4, 6, 1, 0, 0],
                         startMicros: [1_000, 1_000, 1_000, 2_000, 4_000, 8_000, 6_000, 3_000, 1_000])
        let storm = try XCTUnwrap(StormFigures(run))
        XCTAssertEqual(storm.redials, 11)
        XCTAssertEqual(storm.skipped, 2)
        XCTAssertEqual(storm.redialsPerSecond, [0, 0, 0, 0, 4, 6, 1, 0, 0])
        XCTAssertEqual(try XCTUnwrap(storm.baselineErrorRate), 1.0 / 40, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(storm.errorRatePerSecond[6]), 0.1, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(storm.recoverySeconds), 3, accuracy: 1e-9, "end of second 7 − 5 s")
        // Seconds 3 (the kill's start) to 7 (the recovered one): five starts, the fastest 2 ms, the slowest 8 ms.
        let fulfilment = try XCTUnwrap(storm.startFulfillment)
        XCTAssertEqual(fulfilment.count, 5)
        XCTAssertEqual(fulfilment.min, 2, accuracy: 0.01)
        XCTAssertEqual(fulfilment.max, 8, accuracy: 0.01)
        let csv = storm.csvRows().map { $0.joined(separator: ",") }
        XCTAssertTrue(csv.contains("storm.recovery,1,,,,,,,3.000,s"), "\(csv)")
        XCTAssertTrue(csv.contains("storm.redials,9,,,,,,,11,calls"), "\(csv)")
    }

    func testAnErrorRateThatNeverComesBackHasNoRecoveryAndARunWithoutRedialsHasNoFigures() throws {
        let never = result(ended: [(10, 0), (10, 0), (10, 0), (0, 10), (0, 10), (1, 9), (2, 2)],
                           redials: [0, 0, 0, 0, 5, 0, 0], startMicros: [1_000])
        let storm = try XCTUnwrap(StormFigures(never))
        XCTAssertEqual(storm.baselineErrorRate, 0)
        XCTAssertNil(storm.recoverySeconds)
        XCTAssertFalse(storm.csvRows().contains { $0[0] == "storm.recovery" })
        XCTAssertTrue(HTMLReport.stormSentence(storm).contains("not back to it by the end of the run"))
        XCTAssertNil(StormFigures(ReportFixtures.result()), "no redial scheduled: no storm")
    }
}
