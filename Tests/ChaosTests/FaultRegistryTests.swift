import Chaos
import Scenario
import XCTest

/// The registry is keyed by the names the scenario decoder accepts: every name has a fault, and no fault
/// answers to a name a scenario cannot write.
final class FaultRegistryTests: XCTestCase {
    func testEveryScenarioFaultNameIsRegisteredInItsFamilyAndNothingElse() {
        XCTAssertEqual(FaultRegistry.names(of: .push), Set(FaultWindow.pushKinds))
        XCTAssertEqual(FaultRegistry.names(of: .device), Set(FaultWindow.deviceKinds))
        XCTAssertEqual(FaultRegistry.names(of: .network), Set(FaultWindow.networkKinds))
        XCTAssertEqual(FaultRegistry.names(of: .target), Set(FaultWindow.targetKinds))
        XCTAssertEqual(FaultRegistry.names(of: .sip), Set(FaultWindow.sipKinds))
        for family in FaultFamily.allCases {
            for name in FaultRegistry.names(of: family) {
                XCTAssertNotNil(FaultRegistry.kind(name, in: family), "\(family).\(name)")
            }
        }
        XCTAssertTrue(FaultRegistry.kind("drop", in: .push) == PushDropFault.self)
        XCTAssertNil(FaultRegistry.kind("drop", in: .device))
    }

    func testAWindowWithNoFaultsMakesOnlyNoOps() {
        let empty = ChaosFixtures.window()
        for kind in FaultRegistry.all { XCTAssertNil(kind.init(window: empty), "\(kind)") }
        XCTAssertEqual(ChaosFixtures.decide([empty], seq: 1), PushDecision())
    }

    func testThePinnedStreamsKeepTheSaltsFixedSeedRunsWereDrawnWith() {
        let salts = Dictionary(uniqueKeysWithValues: DrawStream.pinned.map { ($0.name, $0.salt) })
        XCTAssertEqual(salts, ["push.error": 1, "push.drop": 2, "push.delay": 3, "push.duplicate": 4,
                               "device.report_delay": 5, "push.reorder": 6, "push.goaway": 7,
                               "device.join_failure": 6, "device.join_delay": 7, "window.devices": 0xD0,
                               "device.offline": 0x0FF, "device.clock_skew": 0xC10C])
    }

    func testANewStreamIsAStableHashOfItsName() {
        XCTAssertEqual(DrawStream("push.corrupt").salt, DrawStream("push.corrupt").salt)
        XCTAssertNotEqual(DrawStream("push.corrupt").salt, DrawStream("push.corrupted").salt)
        // FNV-1a of "a", as published.
        XCTAssertEqual(DrawStream.stableHash("a"), 0xAF63_DC4C_8601_EC8C)
    }
}
