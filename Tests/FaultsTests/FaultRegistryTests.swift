import Faults
import XCTest

/// The registry is the one list of faults: the scenario decoder's keys and every path's deciding order are read
/// from it, and each name answers for exactly one fault.
final class FaultRegistryTests: XCTestCase {
    func testEveryScenarioFaultNameIsRegisteredInItsFamilyAndNothingElse() {
        // The scenario decoder's keys are the registry's, in the order its messages list them (as before the
        // registry was their one source).
        XCTAssertEqual(FaultWindow.pushKinds, ["delay", "drop", "duplicate", "error", "reorder", "brownout", "goaway"])
        XCTAssertEqual(FaultWindow.deviceKinds, ["report_delay", "offline", "join_delay", "join_failure", "clock_skew",
                                                 "socket_drop", "socket_stall"])
        XCTAssertEqual(FaultWindow.networkKinds, ["latency", "jitter", "bandwidth", "reset", "timeout", "slicer",
                                                  "limit_data", "slow_close"])
        XCTAssertEqual(FaultWindow.targetKinds, ["kill", "socket_storm"])
        XCTAssertEqual(FaultWindow.sipKinds, ["loss", "delay", "late_wake", "lost_register"])
        for family in FaultFamily.allCases {
            let names = FaultRegistry.names(of: family)
            XCTAssertEqual(Set(names).count, names.count, "\(family): a name answers for one fault")
        }
        for family in FaultFamily.allCases {
            for name in FaultRegistry.names(of: family) {
                XCTAssertNotNil(FaultRegistry.kind(name, in: family), "\(family).\(name)")
            }
        }
        XCTAssertTrue(FaultRegistry.kind("drop", in: .push) == PushDropFault.self)
        XCTAssertNil(FaultRegistry.kind("drop", in: .device))
    }

    func testEachPathDecidesInItsFaultsPrecedenceOrder() {
        func names(_ kinds: [any Fault.Type]) -> [String] { kinds.map { "\($0)" } }
        XCTAssertEqual(names(FaultRegistry.pushPath), ["PushGoAwayFault", "OfflineFault", "PushErrorFault",
                                                       "PushDropFault", "PushDelayFault", "PushDuplicateFault",
                                                       "PushReorderFault"])
        XCTAssertEqual(names(FaultRegistry.joinPath), ["JoinFailureFault", "JoinDelayFault"])
        XCTAssertEqual(names(FaultRegistry.socketPath), ["SocketDropFault", "SocketStallFault"])
        XCTAssertEqual(names(FaultRegistry.sipMessagePath), ["SIPLossFault", "SIPDelayFault"])
        XCTAssertEqual(names(FaultRegistry.sipWakePath), ["LostRegisterFault", "LateWakeFault"])
        XCTAssertEqual(names(FaultRegistry.network), ["LatencyFault", "BandwidthFault", "SlicerFault",
                                                      "LimitDataFault", "SlowCloseFault", "TimeoutFault",
                                                      "ResetFault"])
        XCTAssertEqual(FaultRegistry.all.count, 27)
    }

    func testAWindowWithNoFaultsMakesOnlyNoOps() {
        let empty = FaultFixtures.window()
        for kind in FaultRegistry.all { XCTAssertNil(kind.init(window: empty), "\(kind)") }
        XCTAssertEqual(FaultFixtures.decide([empty], seq: 1), PushDecision())
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
