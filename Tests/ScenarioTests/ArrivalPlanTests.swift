import XCTest
@testable import Scenario

final class ArrivalPlanTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func scenario(
        _ load: [LoadStage], duration: UInt64? = nil, arrivals: ArrivalProcess = .uniform, seed: UInt64 = 1,
        mix: [MixEntry] = Scenario.defaultMix, behavior: Behavior = Behavior()
    ) -> Scenario {
        Scenario(name: "t", seed: seed, duration: duration, devices: 10, load: load, arrivals: arrivals, mix: mix,
                 behavior: behavior)
    }

    private let randomBehavior = Behavior(
        answerAfter: .uniform(0, 2_000_000_000), talk: .exponential(mean: 30_000_000_000), hangup: .random
    )

    func testHoldSpacesArrivalsEvenly() {
        let plan = ArrivalPlan(scenario: scenario([.hold(rate: 50, nanos: 10 * second)]))
        let times = plan.map(\.plannedNanos)
        XCTAssertEqual(times.count, 500)
        XCTAssertEqual(times.first, 20_000_000)
        XCTAssertEqual(times.last, 10 * second)
        for (index, time) in times.enumerated() {
            XCTAssertEqual(time, UInt64(index + 1) * 20_000_000)
        }
        XCTAssertEqual(plan.map(\.index), Array(0..<500))
    }

    func testRampFromZeroHasLinearDensity() {
        let plan = ArrivalPlan(scenario: scenario([.ramp(from: 0, to: 100, nanos: 10 * second)]))
        let times = plan.map(\.plannedNanos)
        XCTAssertEqual(times.count, 500)
        XCTAssertEqual(times.filter { $0 <= 5 * second }.count, 125)
        XCTAssertEqual(plan.plannedCount(from: 0, to: 5 * second), 125, accuracy: 1e-9)
        // N(t) = 5t², so the k-th arrival is at √(k/5) s.
        XCTAssertEqual(Double(times[19]) / 1e9, (20.0 / 5).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(times, times.sorted())
    }

    func testRampDownMirrorsRampUp() {
        let plan = ArrivalPlan(scenario: scenario([.ramp(from: 100, to: 0, nanos: 10 * second)]))
        let times = plan.map(\.plannedNanos)
        XCTAssertEqual(times.count, 500)
        XCTAssertEqual(times.filter { $0 <= 5 * second }.count, 375)
        XCTAssertEqual(times, times.sorted())
    }

    func testZeroRateStretchPlansNothing() {
        let plan = ArrivalPlan(scenario: scenario([
            .hold(rate: 10, nanos: second), .hold(rate: 0, nanos: 5 * second), .hold(rate: 10, nanos: second),
        ]))
        let times = plan.map(\.plannedNanos)
        XCTAssertEqual(times.count, 20)
        XCTAssertFalse(times.contains { $0 > second && $0 <= 6 * second })
        XCTAssertEqual(times[10], 6 * second + 100_000_000)
    }

    func testDurationShorterThanStagesTruncates() {
        let plan = ArrivalPlan(scenario: scenario([.ramp(from: 0, to: 100, nanos: 10 * second)],
                                                  duration: 5 * second))
        XCTAssertEqual(plan.totalNanos, 5 * second)
        XCTAssertEqual(Array(plan).count, 125)
        XCTAssertTrue(plan.allSatisfy { $0.plannedNanos <= 5 * second })
    }

    func testDurationLongerThanStagesHoldsTheLastRate() {
        let plan = ArrivalPlan(scenario: scenario([.ramp(from: 0, to: 10, nanos: 10 * second)],
                                                  duration: 20 * second))
        XCTAssertEqual(plan.totalNanos, 20 * second)
        XCTAssertEqual(plan.plannedCount(from: 10 * second, to: 20 * second), 100, accuracy: 1e-9)
        XCTAssertEqual(Array(plan).count, 150)
    }

    func testWithoutDurationTheWindowIsTheStages() {
        let plan = ArrivalPlan(scenario: scenario([.hold(rate: 1, nanos: 3 * second), .hold(rate: 2, nanos: second)]))
        XCTAssertEqual(plan.totalNanos, 4 * second)
        XCTAssertEqual(plan.plannedTotal, 5, accuracy: 1e-12)
        XCTAssertEqual(plan.plannedCount(from: 2 * second, to: 10 * second), 3, accuracy: 1e-12)
        XCTAssertEqual(plan.plannedCount(from: 3 * second, to: 2 * second), 0)
    }

    func testPoissonCountIsNearTheExpectedCount() {
        var counts: [Int] = []
        for seed: UInt64 in 1...20 {
            let plan = ArrivalPlan(scenario: scenario([.hold(rate: 100, nanos: 10 * second)], arrivals: .poisson,
                                                      seed: seed))
            let times = plan.map(\.plannedNanos)
            XCTAssertEqual(times, times.sorted())
            XCTAssertTrue(times.allSatisfy { $0 <= 10 * second })
            counts.append(times.count)
        }
        // Each count is Poisson(1000): sd ≈ 32, so 5 sd bounds one run and the mean of 20 is within ~1.6%.
        XCTAssertTrue(counts.allSatisfy { abs($0 - 1000) < 160 }, "\(counts)")
        let mean = Double(counts.reduce(0, +)) / Double(counts.count)
        XCTAssertEqual(mean, 1000, accuracy: 35)
        XCTAssertGreaterThan(Set(counts).count, 1, "different seeds give different counts")
    }

    func testPoissonFollowsARamp() {
        let plan = ArrivalPlan(scenario: scenario([.ramp(from: 0, to: 200, nanos: 10 * second)], arrivals: .poisson))
        let times = plan.map(\.plannedNanos)
        // Expected 1000 in all, 250 in the first half (sd ≈ 16).
        XCTAssertEqual(Double(times.count), 1000, accuracy: 160)
        XCTAssertEqual(Double(times.filter { $0 <= 5 * second }.count), 250, accuracy: 80)
    }

    func testSameSeedGivesTheSamePlan() {
        let make = { (seed: UInt64) in
            Array(ArrivalPlan(scenario: self.scenario([.hold(rate: 20, nanos: 10 * self.second)], arrivals: .poisson,
                                                      seed: seed, behavior: self.randomBehavior)))
        }
        XCTAssertEqual(make(42), make(42))
        XCTAssertNotEqual(make(42), make(43))
    }

    func testArrivalChoicesDependOnlyOnSeedAndIndex() {
        let uniform = Array(ArrivalPlan(scenario: scenario([.hold(rate: 20, nanos: 5 * second)], arrivals: .uniform,
                                                           seed: 9, behavior: randomBehavior)))
        let poisson = Array(ArrivalPlan(scenario: scenario([.hold(rate: 20, nanos: 5 * second)], arrivals: .poisson,
                                                           seed: 9, behavior: randomBehavior)))
        for (a, b) in zip(uniform, poisson) {
            XCTAssertEqual(a.index, b.index)
            XCTAssertEqual(a.answerAfterNanos, b.answerAfterNanos)
            XCTAssertEqual(a.talkNanos, b.talkNanos)
            XCTAssertEqual(a.callerHangsUp, b.callerHangsUp)
        }
    }

    func testMixWeightsShareTheArrivals() {
        let mix = [MixEntry(flow: "a", weight: 70), MixEntry(flow: "b", weight: 20), MixEntry(flow: "c", weight: 10)]
        let plan = ArrivalPlan(scenario: scenario([.hold(rate: 1000, nanos: 20 * second)], mix: mix))
        var counts = [0, 0, 0]
        for arrival in plan { counts[arrival.flow] += 1 }
        XCTAssertEqual(Double(counts[0]) / 20_000, 0.7, accuracy: 0.015)
        XCTAssertEqual(Double(counts[1]) / 20_000, 0.2, accuracy: 0.015)
        XCTAssertEqual(Double(counts[2]) / 20_000, 0.1, accuracy: 0.015)
    }

    func testHangupSideFollowsBehavior() {
        func callers(_ hangup: Behavior.Hangup) -> Int {
            let behavior = Behavior(hangup: hangup)
            return ArrivalPlan(scenario: scenario([.hold(rate: 100, nanos: 10 * second)], behavior: behavior))
                .filter(\.callerHangsUp).count
        }
        XCTAssertEqual(callers(.caller), 1000)
        XCTAssertEqual(callers(.callee), 0)
        XCTAssertEqual(Double(callers(.random)), 500, accuracy: 80)
    }

    func testLongPlanIsGeneratedLazily() {
        // One hour at 1,000/s: taking the first arrivals must not compute the other 3.6 million.
        let plan = ArrivalPlan(scenario: scenario([.hold(rate: 1000, nanos: 3600 * second)]))
        XCTAssertEqual(plan.plannedTotal, 3_600_000, accuracy: 1e-6)
        let first = Array(plan.prefix(3))
        XCTAssertEqual(first.map(\.plannedNanos), [1_000_000, 2_000_000, 3_000_000])
    }

    func testEmptyLoadPlansNothing() {
        XCTAssertEqual(Array(ArrivalPlan(scenario: scenario([]))).count, 0)
        XCTAssertEqual(Array(ArrivalPlan(scenario: scenario([], duration: 10 * second))).count, 0)
    }
}
