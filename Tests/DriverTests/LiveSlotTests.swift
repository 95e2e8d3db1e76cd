@testable import Driver
import Metrics
import XCTest

/// The live snapshot a worker hands other threads each second (`LiveSlot`): counters always, histogram windows
/// only while something reads them live.
final class LiveSlotTests: XCTestCase {
    private func recorder() -> Recorder {
        var recorder = Recorder(runStartNanos: 0)
        recorder.record(.pushToReport, micros: 1_500, atNanos: 1_000)
        recorder.record(.pushToReport, micros: 2_500, atNanos: 2_000)
        recorder.count(.callsStarted, by: 2, atNanos: 1_000)
        return recorder
    }

    func testASlotHandsOverCountersAndHistogramsByDefault() {
        let slot = LiveSlot()
        slot.publish(recorder(), active: 3)
        let snapshot = slot.read()
        XCTAssertEqual(snapshot.counters[MetricName.callsStarted], 2)
        XCTAssertEqual(snapshot.histograms[MetricName.pushToReport]?.totalCount, 2)
        XCTAssertEqual(snapshot.activeConversations, 3)
    }

    func testASlotWithoutLiveReadersHandsOverCountersOnly() {
        let slot = LiveSlot()
        slot.carriesHistograms.store(false, ordering: .relaxed)
        slot.publish(recorder(), active: 3, final: true)
        let snapshot = slot.read()
        XCTAssertEqual(snapshot.counters[MetricName.callsStarted], 2)
        XCTAssertEqual(snapshot.histograms, [:])
        XCTAssertTrue(snapshot.final)
    }
}
