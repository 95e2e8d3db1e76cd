import FaultControl
import FaultProxy
import Faults
import XCTest

/// The network plan on the real proxy: every toxic a window plans is one the proxy takes, field for field, and the
/// proxy's counters come back under their catalog names.
final class NetworkPlanProxyTests: XCTestCase {
    private static let everyToxic: [String: [String: Double]] = [
        "latency": ["ms": 100], "jitter": ["ms": 20], "bandwidth": ["rate_kbps": 64], "slicer": ["bytes": 32],
        "limit_data": ["bytes": 4096], "slow_close": ["ms": 50], "timeout": ["ms": 2000], "reset": ["toxicity": 0.1],
    ]

    func testEveryPlannedToxicBecomesASpecTheProxyTakesFieldForField() throws {
        for (direction, probability) in [("upstream", 0.5), ("both", 0.3), ("downstream", 1.0)] {
            var window = FaultWindow(name: "w", atNanos: 0, forNanos: 10_000_000_000,
                                     network: NetworkFaults(toxics: Self.everyToxic, direction: direction,
                                                            probability: probability))
            window.rampNanos = 2_000_000_000
            let plans = NetworkPlan.toxics(of: window, index: 2)
            let specs = NetworkPlan.toxicSpecs(of: window, index: 2)
            XCTAssertEqual(specs.count, FaultRegistry.network.count)
            for (plan, spec) in zip(plans, specs) {
                XCTAssertEqual(spec.name, plan.name)
                XCTAssertEqual(spec.kind, plan.kind)
                XCTAssertEqual(spec.direction.rawValue, plan.direction.rawValue)
                XCTAssertEqual(spec.toxicity, plan.toxicity)
                XCTAssertEqual(spec.rampNanos, plan.rampNanos)
                XCTAssertEqual(spec.attributes, plan.attributes)
                XCTAssertNoThrow(try ToxicRegistry.make(spec), spec.kind)
            }
        }
    }

    func testTheTwoDirectionEnumsHaveTheSameCases() {
        XCTAssertEqual(ToxicPlan.Direction.allCases.map(\.rawValue), ToxicDirection.allCases.map(\.rawValue))
        for direction in ToxicPlan.Direction.allCases {
            XCTAssertEqual(ToxicDirection(direction).rawValue, direction.rawValue)
        }
    }
}

final class NetworkCounterTests: XCTestCase {
    func testOnlyTheCountersThatGrewAreAddedUnderTheirCatalogNames() {
        var before = ProxyStats()
        before.connectionsAccepted = 3
        before.toxics["w0.latency"] = ToxicStats()
        var after = before
        after.connectionsAccepted = 5
        after.resets = 1
        after.toxics["w0.latency"]?.connectionsSelected = 4
        let growth = NetworkPlan.counterGrowth(from: before, to: after)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: growth.map { ($0.name, $0.by) }),
                       ["network.connections": 2, "network.resets": 1, "faults.network.latency.connections": 4])
    }
}
