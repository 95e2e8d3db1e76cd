import XCTest
@testable import Metrics
import Thresholds

/// callstorm judges its own scheduler lag per window and names the second it stopped keeping up; the capacity
/// search claims no knee above that second.
final class HarnessSaturationTests: XCTestCase {
    private let start: UInt64 = 1_000_000_000_000

    /// `rate(s)` calls planned and started in second s, each started `lag(s)` µs late, push_to_report `p2r(s)` µs.
    private func run(seconds: Int, rate: (Int) -> Int, lag: (Int) -> Int64, p2r: (Int) -> Int64) -> Recorder {
        var recorder = Recorder(runStartNanos: start)
        for s in 0..<seconds {
            let n = rate(s)
            for i in 0..<n {
                let at = start + UInt64(s) * 1_000_000_000 + UInt64(i) * (1_000_000_000 / UInt64(max(n, 1)))
                recorder.count(Metric(named: "calls.planned"), atNanos: at)
                recorder.count(Metric(named: "calls.started"), atNanos: at)
                recorder.record(Metric(named: "scheduler_lag"), micros: lag(s), atNanos: at)
                recorder.record(Metric(named: "push_to_report"), micros: p2r(s), atNanos: at)
            }
        }
        recorder.seal()
        return recorder
    }

    func testAHarnessThatKeepsUpIsNotSaturated() {
        let recorder = run(seconds: 10, rate: { _ in 50 }, lag: { _ in 300 }, p2r: { _ in 2_000 })
        XCTAssertNil(HarnessSaturationAnalysis.analyze(recorder, limit: HarnessLimit()))
    }

    func testTheFirstWindowOverTheLagLimitNamesTheSecondAndTheLastRateKept() throws {
        // 10, 20, … calls/s; the harness lags 50 ms from second 6 on.
        let recorder = run(seconds: 10, rate: { ($0 + 1) * 10 }, lag: { $0 < 6 ? 500 : 50_000 }, p2r: { _ in 1_000 })
        let limit = HarnessLimit(windowSeconds: 2, minimumSamples: 1)
        let saturation = try XCTUnwrap(HarnessSaturationAnalysis.analyze(recorder, limit: limit))
        // The window 5…6 is the first whose p99 holds a 50 ms sample.
        XCTAssertEqual(saturation.fromSecond, 5)
        XCTAssertEqual(saturation.lagMicros, 50_000, accuracy: 50)
        XCTAssertEqual(saturation.deliveredCallsPerSecond, 65)
        XCTAssertEqual(saturation.plannedCallsPerSecond, 65)
        XCTAssertEqual(saturation.lastGoodCallsPerSecond, 55)
        XCTAssertTrue(saturation.summary.hasPrefix("callstorm saturated at ~55 calls/s from second 5"),
                      saturation.summary)
        XCTAssertTrue(saturation.summary.hasSuffix("figures after that measure callstorm, not the target"))
    }

    func testWindowsWithTooFewLagSamplesAreNotJudged() {
        let recorder = run(seconds: 4, rate: { _ in 3 }, lag: { _ in 90_000 }, p2r: { _ in 1_000 })
        XCTAssertNil(HarnessSaturationAnalysis.analyze(recorder, limit: HarnessLimit(minimumSamples: 20)))
    }

    func testCapacityReportsTheHarnessBoundInsteadOfAKneeAboveIt() throws {
        // The target's latency would break at second 8, but callstorm saturated from second 5.
        let recorder = run(seconds: 10, rate: { ($0 + 1) * 10 }, lag: { $0 < 6 ? 500 : 50_000 },
                           p2r: { $0 < 8 ? 1_000 : 500_000 })
        let saturation = HarnessSaturationAnalysis.analyze(recorder, limit: HarnessLimit(windowSeconds: 2,
                                                                                          minimumSamples: 1))
        let spec = CapacitySpec(limit: try Threshold.parse(key: "push_to_report.p99", expression: "< 100ms"),
                                windowSeconds: 2, minimumSamples: 1)
        let result = CapacityAnalysis.analyze(recorder, spec: spec, harness: saturation)
        XCTAssertNil(result.broken, "a break after callstorm saturated is callstorm's, not the target's")
        XCTAssertNil(result.kneeCallsPerSecond)
        XCTAssertEqual(result.windows.filter(\.harnessBound).map(\.second), Array(5...9))
        XCTAssertTrue(result.summary.hasPrefix("harness-bound at 55 calls/s from second 5"), result.summary)
        XCTAssertFalse(result.summary.contains("not reached"), result.summary)
        // Without the harness judgement the same recorder claims a knee far above the saturation point.
        XCTAssertEqual(CapacityAnalysis.analyze(recorder, spec: spec).kneeCallsPerSecond, 75)
    }

    func testAKneeBelowTheSaturationPointStands() throws {
        let recorder = run(seconds: 10, rate: { ($0 + 1) * 10 }, lag: { $0 < 8 ? 500 : 50_000 },
                           p2r: { $0 < 4 ? 1_000 : 500_000 })
        let saturation = HarnessSaturationAnalysis.analyze(recorder, limit: HarnessLimit(windowSeconds: 2,
                                                                                          minimumSamples: 1))
        let spec = CapacitySpec(limit: try Threshold.parse(key: "push_to_report.p99", expression: "< 100ms"),
                                windowSeconds: 2, minimumSamples: 1)
        let result = CapacityAnalysis.analyze(recorder, spec: spec, harness: saturation)
        XCTAssertEqual(result.broken?.second, 4)
        XCTAssertEqual(result.kneeCallsPerSecond, 35)
        XCTAssertTrue(result.summary.hasPrefix("knee at 35 calls/s"), result.summary)
    }
}
