import Determinism
import XCTest
@testable import Quantities

final class DistributionTests: XCTestCase {
    private func sampleMean(_ distribution: Distribution, count: Int = 200_000) -> Double {
        var random = SeededRandom(seed: 99)
        var sum = 0.0
        for _ in 0..<count { sum += Double(distribution.sample(using: &random)) }
        return sum / Double(count)
    }

    func testSampleMeansMatchTheDistributions() {
        let second = 1_000_000_000.0
        let cases: [(Distribution, Double, Double)] = [
            (.constant(2_000_000_000), 2 * second, 0),
            (.uniform(200_000_000, 2_000_000_000), 1.1 * second, 0.01),
            (.normal(mean: 1_000_000_000, stddev: 200_000_000), second, 0.01),
            (.exponential(mean: 60_000_000_000), 60 * second, 0.02),
            (.lognormal(median: 3_000_000_000, sigma: 0.5), 3 * second * exp(0.125), 0.02),
            (.pareto(scale: 1_000_000_000, shape: 3), 1.5 * second, 0.03),
        ]
        for (distribution, expected, tolerance) in cases {
            XCTAssertEqual(distribution.mean ?? .nan, expected, accuracy: expected * 1e-9, "\(distribution)")
            XCTAssertEqual(sampleMean(distribution), expected, accuracy: max(1, expected * tolerance),
                           "\(distribution)")
        }
    }

    func testNormalSamplesAreClampedAtZero() {
        var random = SeededRandom(seed: 5)
        let wide = Distribution.normal(mean: 100, stddev: 1_000_000)
        let samples = (0..<10_000).map { _ in wide.sample(using: &random) }
        XCTAssertTrue(samples.contains(0), "about half the draws fall below zero and clamp to 0")
        XCTAssertGreaterThan(samples.max() ?? 0, 0)
    }

    func testParetoNeverGoesBelowItsScale() {
        var random = SeededRandom(seed: 5)
        let pareto = Distribution.pareto(scale: 1_000, shape: 1.1)
        XCTAssertTrue((0..<10_000).allSatisfy { _ in pareto.sample(using: &random) >= 1_000 })
        XCTAssertNil(Distribution.pareto(scale: 1, shape: 1).mean)
    }

    func testUniformStaysWithinBounds() {
        var random = SeededRandom(seed: 5)
        let uniform = Distribution.uniform(10, 20)
        let samples = (0..<10_000).map { _ in uniform.sample(using: &random) }
        XCTAssertEqual(samples.min(), 10)
        XCTAssertEqual(samples.max(), 20)
    }

    func testDescriptionUsesScenarioUnits() {
        XCTAssertEqual(Distribution.lognormal(median: 3_000_000_000, sigma: 0.5).description,
                       "lognormal(median 3s, sigma 0.5)")
        XCTAssertEqual(Distribution.uniform(200_000_000, 2_000_000_000).description, "uniform(200ms..2s)")
        XCTAssertEqual(Distribution.constant(1_500_000_000).description, "1.5s")
    }
}
