import Faults
import XCTest

/// The registry is the one list of faults: the scenario decoder's keys and every path's deciding order are read
/// from it, and each name answers for exactly one fault.
final class FaultRegistryTests: XCTestCase {
    /// Whether `part` appears in `whole` in the same order (a fault added later may sit anywhere between).
    private func inOrder(_ part: [String], in whole: [String]) -> Bool {
        var rest = whole[...]
        for name in part {
            guard let i = rest.firstIndex(of: name) else { return false }
            rest = rest[(i + 1)...]
        }
        return true
    }

    func testEveryScenarioFaultNameIsRegisteredInItsFamilyAndNothingElse() {
        // The scenario decoder's keys are the registry's, and the ones scenarios had before the registry was their
        // one source keep the order the decoder's messages list them in (a new fault's key may go anywhere).
        let before: [FaultFamily: [String]] = [
            .push: ["delay", "drop", "duplicate", "error", "reorder", "brownout", "goaway"],
            .device: ["report_delay", "offline", "join_delay", "join_failure", "clock_skew", "socket_drop",
                      "socket_stall"],
            .network: ["latency", "jitter", "bandwidth", "reset", "timeout", "slicer", "limit_data", "slow_close"],
            .target: ["kill", "socket_storm"],
            .sip: ["loss", "delay", "late_wake", "lost_register"],
        ]
        let decoded: [FaultFamily: [String]] = [
            .push: FaultWindow.pushKinds, .device: FaultWindow.deviceKinds, .network: FaultWindow.networkKinds,
            .target: FaultWindow.targetKinds, .sip: FaultWindow.sipKinds,
        ]
        for family in FaultFamily.allCases {
            let names = FaultRegistry.names(of: family)
            XCTAssertEqual(decoded[family], names, "\(family)")
            XCTAssertTrue(inOrder(before[family] ?? [], in: names), "\(family): \(names)")
            XCTAssertEqual(Set(names).count, names.count, "\(family): a name answers for one fault")
            for name in names {
                XCTAssertNotNil(FaultRegistry.kind(name, in: family), "\(family).\(name)")
            }
        }
        XCTAssertTrue(FaultRegistry.kind("drop", in: .push) == PushDropFault.self)
        XCTAssertNil(FaultRegistry.kind("drop", in: .device))
    }

    func testEachPathDecidesInItsFaultsPrecedenceOrder() {
        func names(_ kinds: [any Fault.Type]) -> [String] { kinds.map { "\($0)" } }
        // The paths as they decided before the registry was one list; a new fault may sit anywhere between.
        XCTAssertTrue(inOrder(["PushGoAwayFault", "OfflineFault", "PushErrorFault", "PushDropFault", "PushDelayFault",
                               "PushDuplicateFault", "PushReorderFault"], in: names(FaultRegistry.pushPath)))
        XCTAssertTrue(inOrder(["JoinFailureFault", "JoinDelayFault"], in: names(FaultRegistry.joinPath)))
        XCTAssertTrue(inOrder(["SocketDropFault", "SocketStallFault"], in: names(FaultRegistry.socketPath)))
        XCTAssertTrue(inOrder(["SIPLossFault", "SIPDelayFault"], in: names(FaultRegistry.sipMessagePath)))
        XCTAssertTrue(inOrder(["LostRegisterFault", "LateWakeFault"], in: names(FaultRegistry.sipWakePath)))
        XCTAssertTrue(inOrder(["LatencyFault", "BandwidthFault", "SlicerFault", "LimitDataFault", "SlowCloseFault",
                               "TimeoutFault", "ResetFault"], in: names(FaultRegistry.network)))
        for path in [names(FaultRegistry.pushPath), names(FaultRegistry.joinPath), names(FaultRegistry.socketPath),
                     names(FaultRegistry.sipMessagePath), names(FaultRegistry.sipWakePath),
                     names(FaultRegistry.network)] {
            XCTAssertEqual(Set(path).count, path.count, "\(path)")
        }
        let precedences = FaultRegistry.pushPath.map { $0.precedence }
        XCTAssertEqual(precedences, precedences.sorted(), "a path decides by precedence")
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
