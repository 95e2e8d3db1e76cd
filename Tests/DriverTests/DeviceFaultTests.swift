import Determinism
import CallModel
@testable import Driver
import PushModel
import Scenario
import XCTest

/// The device faults a worker decides (media setup, report delay, offline, clock skew), on a worker whose clock
/// is moved by hand. No request is sent: a call is put on two devices directly and the decisions are asked for.
final class DeviceFaultTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private struct Rig {
        let worker: Worker
        let clock: ManualClock
    }

    /// A worker of four devices with `faults`, its load started 500 ms ago, and call 0 (planned at 100 ms) on
    /// devices 0 (caller) and 1 (callee).
    private func rig(_ faults: String) throws -> Rig {
        let yaml = """
            name: device-faults
            seed: 5
            devices: 4
            mix: { incoming-1to1: 100 }
            load:
              - hold: { rate: 1/s, for: 20s }
            faults:
            \(faults)
            """
        let scenario = try ScenarioLoader.parse(yaml, file: "device-faults.yaml").get()
        let settings = DriverSettings(scenario: scenario, targetURL: "http://127.0.0.1:9", workers: 1)
        let clock = ManualClock()
        let worker = try Worker(index: 0, settings: settings, clock: clock, deviceIndexes: [0, 1, 2, 3],
                                runStartNanos: clock.nowNanos())
        worker.loop.sync {
            worker.launcher.arrivals.loadStart = clock.nowNanos()
            worker.faults.loadStart = clock.nowNanos()
            clock.advance(by: 500 * ms)
            let arrival = Arrival(index: 0, plannedNanos: 100 * ms, flow: 0, answerAfterNanos: 0, talkNanos: 0,
                                  callerHangsUp: true)
            worker.table.devices[0].callID = 0
            worker.table.devices[1].callID = 0
            worker.table.calls[0] = FlowInterpreter(arrival: arrival, flow: settings.flows[0],
                                              roles: ["caller": 0, "callee": 1], seed: settings.seed,
                                              config: worker.launcher.arrivals.config, now: clock.nowNanos())
        }
        addTeardownBlock { _ = worker.finish() }
        return Rig(worker: worker, clock: clock)
    }

    private func counter(_ rig: Rig, _ name: String) -> Int64 {
        rig.worker.loop.sync { rig.worker.books.recorder.counters[name] ?? 0 }
    }

    func testAJoinFailureWindowFailsTheJoinAndLogsTheFault() throws {
        let r = try rig("  - { name: bad-media, at: 0s, for: 10s, device: { join_failure: 100% } }")
        let fault = r.worker.loop.sync { r.worker.faults.mediaFault(1, now: r.clock.nowNanos()) }
        guard case .failure? = fault else { return XCTFail("expected a failure, got \(String(describing: fault))") }
        XCTAssertEqual(counter(r, "faults.device.join_failed"), 1)
        XCTAssertTrue(r.worker.faults.log.csv().contains("bad-media,device.join_failed,"), r.worker.faults.log.csv())
    }

    func testAJoinDelayWindowDelaysTheJoinByItsDistribution() throws {
        let r = try rig("  - { name: slow-media, at: 0s, for: 10s, device: { join_delay: 300ms } }")
        let fault = r.worker.loop.sync { r.worker.faults.mediaFault(1, now: r.clock.nowNanos()) }
        guard case .delay(let nanos)? = fault else { return XCTFail("expected a delay, got \(String(describing: fault))") }
        XCTAssertEqual(nanos, 300 * ms)
        XCTAssertEqual(counter(r, "faults.device.join_delayed"), 1)
    }

    func testAWindowAfterTheCallsPlannedTimeLeavesItsJoinAlone() throws {
        let r = try rig("  - { name: later, at: 5s, for: 10s, device: { join_failure: 100% } }")
        XCTAssertNil(r.worker.loop.sync { r.worker.faults.mediaFault(1, now: r.clock.nowNanos()) })
        XCTAssertNil(r.worker.loop.sync { r.worker.faults.mediaFault(3, now: r.clock.nowNanos()) }, "in no call")
    }

    func testAReportDelayPutsOffTheVoIPPushesReportByItsDelay() throws {
        let r = try rig("  - { name: frozen-app, at: 0s, for: 10s, device: { report_delay: 1s } }")
        let push = APNsPush(token: "t", apnsID: "id", pushType: .voip, topic: "app.voip", priority: 10,
                            expiration: nil, collapseID: nil, payload: [], acceptedNanos: r.clock.nowNanos())
        let delay = r.worker.loop.sync { r.worker.faults.reportDelay(push, local: 1, now: r.clock.nowNanos()) }
        XCTAssertEqual(delay, 1_000 * ms)
        XCTAssertEqual(counter(r, "faults.device.report_delayed"), 1)
    }

    func testAnOfflineDeviceIsOfflineForItsCallsRequests() throws {
        let r = try rig("  - { name: tunnel, at: 0s, for: 10s, device: { offline: 100% } }")
        XCTAssertTrue(r.worker.loop.sync { r.worker.faults.isOffline(1) })
        let none = try rig("  - { name: tunnel, at: 5s, for: 10s, device: { offline: 100% } }")
        XCTAssertFalse(none.worker.loop.sync { none.worker.faults.isOffline(1) })
    }

    func testAClockSkewIsDrawnOncePerDeviceWithinItsBoundAndLoggedOnce() throws {
        let r = try rig("  - { name: skew, at: 0s, for: 10s, device: { clock_skew: 30s } }")
        let offsets = r.worker.loop.sync { (0..<3).map { _ in r.worker.faults.clockOffsetMillis(1) } }
        XCTAssertEqual(Set(offsets).count, 1, "the same offset every time: \(offsets)")
        XCTAssertLessThanOrEqual(abs(offsets[0]), 30_000)
        XCTAssertEqual(counter(r, "faults.device.clock_skewed"), 1)
    }

    func testACallThatFailsIsAttributedToTheFaultLoggedAgainstItAndOneNoFaultTouchedStaysTheTargets() throws {
        let r = try rig("  - { name: bad-media, at: 0s, for: 10s, device: { join_failure: 100% } }")
        r.worker.loop.sync {
            _ = r.worker.faults.mediaFault(1, now: r.clock.nowNanos())
            r.worker.table.calls[0]?.status.failed = true
            r.worker.launcher.complete(0)
            // A failed call no fault was logged against: the target's, chaos run or not.
            r.worker.faults.attribute(call: 1, devices: [2, 3], plannedSinceLoad: 0, failed: true,
                                      now: r.clock.nowNanos())
            // A call that completed is not attributed at all.
            r.worker.faults.attribute(call: 2, devices: [2, 3], plannedSinceLoad: 0, failed: false,
                                      now: r.clock.nowNanos())
        }
        XCTAssertEqual(counter(r, "calls.attributed_to_faults"), 1)
        XCTAssertEqual(counter(r, "calls.attributed_to_faults.device.join_failed"), 1)
        XCTAssertEqual(counter(r, "calls.failed_without_fault"), 1)
    }

    func testAFailedCallOnAnOfflinePhoneIsPutDownToTheOfflineFault() throws {
        let r = try rig("  - { name: no-signal, at: 0s, for: 10s, device: { offline: 100% } }")
        r.worker.loop.sync {
            r.worker.faults.attribute(call: 0, devices: [0, 1], plannedSinceLoad: 100 * ms, failed: true,
                                      now: r.clock.nowNanos())
        }
        XCTAssertEqual(counter(r, "calls.attributed_to_faults.device.offline"), 1)
        XCTAssertEqual(counter(r, "calls.failed_without_fault"), 0)
    }
}
