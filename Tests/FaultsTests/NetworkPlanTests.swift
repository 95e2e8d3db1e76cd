import Faults
import XCTest

/// The network plan: a window's network faults become the proxy's toxics in the registry's order, and the proxy's
/// findings come back as rows (FaultControlTests pin that the proxy takes every toxic and how its counters come back).
final class NetworkPlanTests: XCTestCase {
    private func specs(_ toxics: [String: [String: Double]], direction: String = "downstream",
                       probability: Double = 1) -> [ToxicPlan] {
        NetworkFixtures.specs(toxics, direction: direction, probability: probability)
    }

    func testEveryScenarioKeyBecomesItsToxicWithTheProxysAttributeNames() {
        let all = specs(["latency": ["ms": 100], "jitter": ["ms": 20], "bandwidth": ["rate_kbps": 64],
                         "slicer": ["bytes": 32], "limit_data": ["bytes": 4096], "slow_close": ["ms": 50],
                         "timeout": ["ms": 2000], "reset": ["toxicity": 0.1]],
                        direction: "upstream", probability: 0.5)
        XCTAssertEqual(all.map(\.name), ["w2.latency", "w2.bandwidth", "w2.slicer", "w2.limit_data",
                                         "w2.slow_close", "w2.timeout", "w2.reset_peer"])
        XCTAssertEqual(all[0].attributes, ["latency": 100, "jitter": 20])
        XCTAssertEqual(all[1].attributes, ["rate": 64])
        XCTAssertEqual(all[2].attributes, ["average_size": 32])
        XCTAssertEqual(all[3].attributes, ["bytes": 4096])
        XCTAssertEqual(all[4].attributes, ["delay": 50])
        XCTAssertEqual(all[5].attributes, ["timeout": 2000])
        XCTAssertEqual(all[6].attributes, ["timeout": 0])
        XCTAssertTrue(all.dropLast().allSatisfy { $0.direction == .upstream && $0.toxicity == 0.5 })
        // A reset hits the whole connection: one direction, and its own share.
        XCTAssertEqual(all[6].direction, .downstream)
        XCTAssertEqual(all[6].toxicity, 0.1)
    }

    func testNetworkRampReachesTheProxysToxics() {
        var window = FaultWindow(name: "w", atNanos: 0, forNanos: 4_000_000_000,
                                 network: NetworkFaults(toxics: ["reset": ["toxicity": 0.1], "latency": ["ms": 50]]))
        window.rampNanos = 2_000_000_000
        let specs = NetworkPlan.toxics(of: window, index: 3)
        XCTAssertEqual(Set(specs.map(\.name)), ["w3.latency", "w3.reset_peer"])
        XCTAssertTrue(specs.allSatisfy { $0.rampNanos == 2_000_000_000 }, "\(specs)")
        XCTAssertFalse(NetworkPlan.isRouted(window))
        window.flows = ["declined"]
        XCTAssertTrue(NetworkPlan.isRouted(window))
    }

    func testToxicNamesParseBackToTheirWindowAndKind() {
        XCTAssertEqual(NetworkPlan.parse(toxicName: "w12.slow_close").window, 12)
        XCTAssertEqual(NetworkPlan.parse(toxicName: "w12.slow_close").kind, "slow_close")
        XCTAssertEqual(NetworkPlan.parse(toxicName: "latency").kind, "latency")
        XCTAssertEqual(NetworkPlan.faultKind(toxicKind: "latency"), "network.latency")
    }

    func testOnlyTheSharedWindowsOpenNowGoOnTheSharedProxy() {
        let net = NetworkFaults(toxics: ["latency": ["ms": 1]])
        var routed = FaultFixtures.window(network: net)
        routed.devices = 0.5
        let later = FaultWindow(name: "l", atNanos: 5_000_000_000, forNanos: 1, network: net)
        let windows = [FaultFixtures.window(network: net), routed, later, FaultFixtures.window()]
        XCTAssertEqual(NetworkPlan.openShared(windows, at: 1), [0])
        XCTAssertEqual(NetworkPlan.openShared(windows, at: 5_000_000_000), [0, 2])
    }

    func testTheProxySeedsAreTheirOwnStreamsOfTheScenarioSeed() {
        XCTAssertEqual(DrawStream.networkSeed(0), 0x4E45_5457_4F52_4B00)
        XCTAssertEqual(DrawStream.routedNetworkSeed(7, window: 0), (7 ^ 0x4E45_5457_4F52_4B00) ^ 0x9E37_79B9_7F4A_7C15)
    }
}
