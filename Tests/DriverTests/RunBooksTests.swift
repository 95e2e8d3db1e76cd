@testable import Driver
import CallModel
import Metrics
import PushModel
import Scenario
import Transport
import XCTest

/// The books a worker's parts write into, on a real worker on the embedded loop: what a stop counts (calls and
/// their actions in flight, pushes still owed), and what arrives once they are sealed.
final class RunBooksTests: XCTestCase {
    private func rig() throws -> WorkerRig {
        let yaml = """
            name: books
            devices: 2
            load: [ { hold: { rate: 1/s, for: 10s } } ]
            """
        let rig = try WorkerRig(scenario: try ScenarioLoader.parse(yaml, file: "books.yaml").get())
        rig.loop.target = { _ in ClientResponse(status: 201, body: []) }
        rig.worker.registerAll(concurrency: 2) {}
        rig.loop.runPending()
        return rig
    }

    func testAStopCountsTheCallsInFlightAndThePushesStillOwed() throws {
        let rig = try rig()
        let worker = rig.worker
        worker.launcher.arrivals.pending = true
        worker.launcher.arrive(Arrival(index: 0, plannedNanos: 0, flow: 0, answerAfterNanos: 0, talkNanos: 0,
                                       callerHangsUp: true), now: rig.clock.nowNanos())
        worker.books.pendingDeliveries = 2
        let c = rig.finish()
        XCTAssertEqual(c[MetricName.callsInFlightAtStop], 1, "\(c)")
        XCTAssertEqual(c[MetricName.pushesUndeliveredAtStop], 2, "\(c)")
        XCTAssertTrue(worker.books.notes.contains { $0.contains("was still in flight at stop") })
    }

    func testWhatArrivesAfterTheSealIsCountedLate() throws {
        let rig = try rig()
        _ = rig.finish()
        XCTAssertTrue(rig.worker.books.sealed)
        rig.worker.books.countLate(.pushesAccepted, by: 3)
        XCTAssertEqual(rig.worker.books.lateCounts.withLock { $0 }, [MetricName.pushesAccepted: 3])
    }

    /// Once the driver merged a worker's recorder, the books hold none of it (its histograms and counters would
    /// stay beside the merged copy through the check and the report) and hand over their notes.
    func testHandedOverBooksLetTheirRecorderGoAndKeepTheirNotes() throws {
        let rig = try rig()
        let worker = rig.worker
        worker.launcher.arrivals.pending = true
        worker.launcher.arrive(Arrival(index: 0, plannedNanos: 0, flow: 0, answerAfterNanos: 0, talkNanos: 0,
                                       callerHangsUp: true), now: rig.clock.nowNanos())
        let whole = worker.finish()
        XCTAssertEqual(whole.counters[MetricName.callsStarted], 1)
        let notes = worker.loop.sync { worker.books.handedOver() }
        XCTAssertTrue(notes.contains { $0.contains("was still in flight at stop") }, "\(notes)")
        XCTAssertEqual(worker.books.recorder.counters, [:])
        XCTAssertTrue(worker.books.recorder.histograms.isEmpty)
        XCTAssertEqual(whole.counters[MetricName.callsStarted], 1, "the merged copy is the driver's")
    }

    /// An action ended by an event whose time is before its start (a remote end's message that arrived while the
    /// Driver started it) finishes at its start: a zero duration, never a trap or a wrapped one.
    func testAnActionEndedByAnEarlierArrivalFinishesAtItsStart() {
        let books = RunBooks(journal: nil, runStart: 0)
        var action = Action(id: 1, kind: .resume, conversationUUID: "c-1", plannedNanos: 4_000_000,
                            startedNanos: 5_000_000, timeoutNanos: 9_000_000)
        action.finish(.failed(reason: "already_ended"), at: 4_500_000)
        let record = ActionRecord(action: action, device: 0, step: "resume", flow: "f", call: 0)
        books.finished(record, device: "dev-0", now: 4_500_000)
        let took = books.recorder.histogram(.fulfillment(ActionKind.resume.rawValue))
        XCTAssertEqual(took?.totalCount, 1)
        XCTAssertEqual(took?.max, 0, "finished at its start")
    }
}
