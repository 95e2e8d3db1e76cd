import Determinism
@testable import Driver
import Metrics
import Scenario
import Transport
import XCTest

/// The call launcher on a real worker on the embedded loop: where calls start (a planned arrival on idle devices)
/// and the calls the devices' signaling hands it as effects (`WorkerEffect.takeOutside`, `.takeWaiting`).
final class CallLauncherTests: XCTestCase {
    private func rig() throws -> WorkerRig {
        let yaml = """
            name: launcher
            devices: 2
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            """
        let rig = try WorkerRig(scenario: try ScenarioLoader.parse(yaml, file: "launcher.yaml").get())
        rig.loop.target = { _ in ClientResponse(status: 201, body: []) }
        rig.worker.registerAll(concurrency: 2) {}
        rig.loop.runPending()
        return rig
    }

    private func arrival(_ index: Int) -> Arrival {
        Arrival(index: index, plannedNanos: 0, flow: 0, answerAfterNanos: 0, talkNanos: 0, callerHangsUp: true)
    }

    func testAnArrivalWithTooFewIdleDevicesIsCountedDroppedAndStartsNoCall() throws {
        let rig = try rig()
        defer { rig.stop() }
        let worker = rig.worker
        _ = worker.table.devices.takeIdle()
        worker.launcher.arrivals.pending = true
        worker.launcher.arrive(arrival(0), now: rig.clock.nowNanos())
        let c = worker.books.recorder.counters
        XCTAssertEqual(c[MetricName.callsPlanned], 1)
        XCTAssertEqual(c[MetricName.callsDroppedNoIdleDevice], 1)
        XCTAssertTrue(worker.table.calls.isEmpty)
    }

    func testAnArrivalOnIdleDevicesStartsItsCallOnThemAndCountsIt() throws {
        let rig = try rig()
        defer { rig.stop() }
        let worker = rig.worker
        worker.launcher.arrivals.pending = true
        worker.launcher.arrive(arrival(0), now: rig.clock.nowNanos())
        XCTAssertNotNil(worker.table.calls[0])
        XCTAssertEqual(worker.table.devices[0].callID, 0)
        XCTAssertEqual(worker.table.devices[1].callID, 0)
        XCTAssertEqual(worker.books.recorder.counters[MetricName.callsStarted], 1)
        XCTAssertEqual(worker.table.devices.idleCount, 0)
    }

    func testATakeOutsideEffectStartsNothingWhenTheScenarioExpectsNoOutsideCall() throws {
        let rig = try rig()
        defer { rig.stop() }
        let worker = rig.worker
        worker.apply(.takeOutside(device: 0, conversation: "stray", now: rig.clock.nowNanos()))
        worker.apply(.takeWaiting(device: 0, conversation: "stray", now: rig.clock.nowNanos()))
        XCTAssertNil(worker.table.devices[0].callID, "no outside-started flow: the device stays idle")
        XCTAssertNil(worker.table.devices[0].waitingCall)
        XCTAssertTrue(worker.table.calls.isEmpty)
    }
}
