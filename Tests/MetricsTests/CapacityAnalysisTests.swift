import XCTest
@testable import Metrics
import Thresholds

final class CapacityAnalysisTests: XCTestCase {
    private let start: UInt64 = 1_000_000_000_000

    /// A ramp of `rate(s)` calls in second s, each call's push_to_report `latency(s)` microseconds.
    private func ramp(seconds: Int, rate: (Int) -> Int, latency: (Int) -> Int64) -> Recorder {
        var recorder = Recorder(runStartNanos: start)
        for s in 0..<seconds {
            let n = rate(s)
            for i in 0..<n {
                let at = start + UInt64(s) * 1_000_000_000 + UInt64(i) * (1_000_000_000 / UInt64(max(n, 1)))
                recorder.count(Metric(named: "calls.started"), atNanos: at)
                recorder.record(Metric(named: "push_to_report"), micros: latency(s), atNanos: at)
            }
        }
        recorder.seal()
        return recorder
    }

    private func spec(_ limit: String, window: Int = 2, minimum: Int = 1) throws -> CapacitySpec {
        CapacitySpec(limit: try Threshold.parse(key: "push_to_report.p99", expression: limit), windowSeconds: window,
                     minimumSamples: minimum)
    }

    func testKneeIsTheHighestPassingRateBeforeTheFirstWindowThatBreaksTheLimit() throws {
        // 10, 20, … calls/s; latency 1 ms until second 6, then 200 ms.
        let recorder = ramp(seconds: 10, rate: { ($0 + 1) * 10 }, latency: { $0 < 6 ? 1_000 : 200_000 })
        let result = CapacityAnalysis.analyze(recorder, spec: try spec("< 100ms"))
        // Windows end at seconds 1…9; the window ending at 6 holds second 6 (200 ms is its p99).
        XCTAssertEqual(result.windows.map(\.second), Array(1...9))
        XCTAssertEqual(result.broken?.second, 6)
        XCTAssertEqual(result.broken?.callsPerSecond, 65)   // (60 + 70) / 2
        XCTAssertEqual(result.kneeCallsPerSecond, 55)       // window 4…5: (50 + 60) / 2
        XCTAssertEqual(result.windows.first { $0.second == 5 }?.valueMicros, 1_000)
        XCTAssertTrue(result.summary.hasPrefix("knee at 55 calls/s"), result.summary)
        XCTAssertTrue(result.summary.contains("broke at second 6"), result.summary)
    }

    func testALimitHeldThroughoutReportsTheKneeAsNotReached() throws {
        let recorder = ramp(seconds: 6, rate: { ($0 + 1) * 10 }, latency: { _ in 2_000 })
        let result = CapacityAnalysis.analyze(recorder, spec: try spec("< 100ms"))
        XCTAssertNil(result.broken)
        XCTAssertNil(result.kneeCallsPerSecond)
        XCTAssertTrue(result.windows.allSatisfy(\.passed))
        XCTAssertTrue(result.summary.contains("up to 55 calls/s: the knee was not reached"), result.summary)
    }

    func testWindowsWithTooFewSamplesAreNotJudged() throws {
        // One slow call in each of the first seconds would otherwise be the p99 and break the limit at once.
        let recorder = ramp(seconds: 8, rate: { $0 < 3 ? 1 : 50 }, latency: { $0 < 3 ? 500_000 : 1_000 })
        let strict = CapacityAnalysis.analyze(recorder, spec: try spec("< 100ms", window: 1, minimum: 1))
        XCTAssertEqual(strict.broken?.second, 0)
        let judged = CapacityAnalysis.analyze(recorder, spec: try spec("< 100ms", window: 1, minimum: 20))
        XCTAssertNil(judged.broken)
        XCTAssertEqual(judged.windows.first?.second, 3)
    }

    func testALimitOnACounterIsNoCapacityLimit() throws {
        let counter = CapacitySpec(limit: try Threshold.parse(key: "calls.failed", expression: "== 0"))
        XCTAssertNil(counter.latency)
        let recorder = ramp(seconds: 3, rate: { _ in 10 }, latency: { _ in 1 })
        XCTAssertTrue(CapacityAnalysis.analyze(recorder, spec: counter).windows.isEmpty)
    }
}
