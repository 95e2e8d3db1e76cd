import Determinism
@testable import Driver
import Metrics
import PushModel
import Scenario
import XCTest

/// The push intake on a real worker on the embedded loop: what the push sink's faults decided (a delay, copies, a
/// hold) is carried out through the worker's wheel under the manual clock, and every push is in the books.
final class PushIntakeTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func rig() throws -> WorkerRig {
        let yaml = """
            name: intake
            devices: 2
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            """
        return try WorkerRig(scenario: try ScenarioLoader.parse(yaml, file: "intake.yaml").get())
    }

    private func push(_ id: String, at nanos: UInt64) -> APNsPush {
        APNsPush(token: "t", apnsID: id, pushType: .background, topic: "app", priority: 5, expiration: nil,
                 collapseID: nil, payload: Array("{}".utf8), acceptedNanos: nanos)
    }

    private func counter(_ rig: WorkerRig, _ name: String) -> Int64 { rig.worker.books.recorder.counters[name] ?? 0 }

    func testADelayedPushWaitsInTheWheelAndReachesTheDeviceAtItsTime() throws {
        let rig = try rig()
        defer { rig.stop() }
        rig.worker.intake.accepted(push("a", at: rig.clock.nowNanos()), local: 0, delay: 300 * ms, copies: 1)
        XCTAssertEqual(counter(rig, MetricName.pushesAccepted), 1)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 0)
        XCTAssertEqual(rig.worker.books.pendingDeliveries, 1)
        rig.advance(by: 299 * ms)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 0, "not before its delay")
        rig.advance(by: 2 * ms)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 1)
        XCTAssertEqual(rig.worker.books.pendingDeliveries, 0)
        XCTAssertEqual(rig.worker.books.recorder.histograms[MetricName.pushDelivery]?.max ?? 0, 301_000, accuracy: 2_000)
    }

    func testEveryCopyOfADuplicatedPushIsDeliveredAndTheExtraOnesCounted() throws {
        let rig = try rig()
        defer { rig.stop() }
        rig.worker.intake.accepted(push("a", at: rig.clock.nowNanos()), local: 1, delay: 0, copies: 3)
        XCTAssertEqual(counter(rig, MetricName.pushesAccepted), 1)
        XCTAssertEqual(counter(rig, MetricName.pushesDuplicated), 2)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 3)
    }

    func testAHeldPushArrivesRightAfterTheDevicesNextPushAndOutOfOrder() throws {
        let rig = try rig()
        defer { rig.stop() }
        let first = push("first", at: rig.clock.nowNanos())
        rig.worker.intake.accepted(first, local: 0, delay: 0, copies: 1, hold: 1_000 * ms)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 0, "held")
        rig.advance(by: 10 * ms)
        rig.worker.intake.accepted(push("second", at: rig.clock.nowNanos()), local: 0, delay: 0, copies: 1)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 2, "the later push released the held one")
        XCTAssertEqual(counter(rig, "pushes.delivered_out_of_order"), 1)
        XCTAssertEqual(rig.worker.books.pendingDeliveries, 0)
        rig.advance(by: 2_000 * ms)
        XCTAssertEqual(counter(rig, MetricName.pushesDelivered), 2, "its own bound finds nothing left to deliver")
    }

    func testAPushAfterTheWorkerFinishedIsCountedLateAsUndelivered() throws {
        let rig = try rig()
        _ = rig.finish()
        rig.worker.intake.accepted(push("late", at: rig.clock.nowNanos()), local: 0, delay: 0, copies: 2)
        let late = rig.worker.books.lateCounts.withLock { $0 }
        XCTAssertEqual(late, [MetricName.pushesAccepted: 1, MetricName.pushesDuplicated: 1,
                              MetricName.pushesUndeliveredAtStop: 2])
    }

    /// Each push type is counted under its own `pushes.received.<type>` (the counter is found by the type's place
    /// among the cases, not hashed).
    func testEveryPushTypeCountsUnderItsOwnReceivedCounter() {
        for type in APNsPush.PushType.allCases {
            XCTAssertEqual(PushIntake.received(type).name, MetricName.pushesReceived(type.rawValue))
        }
    }
}
