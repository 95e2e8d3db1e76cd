import XCTest
@testable import Metrics

/// The checkpoint image's run totals come from a sparse total kept from seal to seal (`MetricState.sealedTotal`)
/// plus the open second: they must be the dense totals' own sparse form at every checkpoint, through late
/// samples, segments detached, a merge and an overflow.
final class RecorderImageTotalsTests: XCTestCase {
    private let start: UInt64 = 7_000_000_000_000
    private func at(_ seconds: Double) -> UInt64 { start + UInt64(seconds * 1e9) }

    private func assertImageMatchesDense(_ recorder: Recorder, _ note: String, line: UInt = #line) {
        let image = recorder.image.histograms
        let dense = recorder.histograms.mapValues(\.sparse)
        XCTAssertEqual(image, dense, note, line: line)
    }

    func testImageTotalsEqualTheDenseTotalsAtEveryCheckpoint() {
        var recorder = Recorder(runStartNanos: start)
        let a = Metric(named: "image_totals.a"), b = Metric(named: "image_totals.b")
        var value: Int64 = 17
        for second in 0..<6 {
            for k in 0..<(second == 3 ? 200 : 5) {  // second 3 spills its open interval into the dense form
                value = (value &* 7_919 &+ Int64(k)) % 2_000_000
                recorder.record(a, micros: value, atNanos: at(Double(second) + Double(k) / 1_000))
                if k % 2 == 0 { recorder.record(b, micros: value / 3, atNanos: at(Double(second) + 0.5)) }
            }
            assertImageMatchesDense(recorder, "second \(second), open")
            if second == 2 { recorder.record(a, micros: 5_000_000_000, atNanos: at(1.5)) }  // late, overflowing
            _ = recorder.detachSeries(before: second)
            assertImageMatchesDense(recorder, "second \(second), after detaching")
        }
        var other = Recorder(runStartNanos: start)
        other.record(a, micros: 42, atNanos: at(6.2))
        recorder.merge(other)
        assertImageMatchesDense(recorder, "after a merge")
        recorder.record(a, micros: 43, atNanos: at(7.1))
        assertImageMatchesDense(recorder, "a sample after the merge")
        recorder.seal()
        assertImageMatchesDense(recorder, "sealed")
    }

    /// The kept total is in use after every seal: a sample reached `total` before the second that was over was
    /// sealed, so the kept total never matched and every seal and image scanned the dense total again.
    func testSealKeepsTheTotalWithoutTheOpenSecond() {
        var recorder = Recorder(runStartNanos: start)
        let m = Metric(named: "image_totals.kept")
        for second in 0..<4 {
            for k in 0...second { recorder.record(m, micros: Int64(100 + k), atNanos: at(Double(second) + 0.1)) }
            let state = recorder.metrics[recorder.metrics.index(of: m.key)!]
            let sealedSamples = Int64(second * (second + 1) / 2)  // seconds before this one: 1 + 2 + ... + second
            XCTAssertEqual(state.sealedTotal?.totalCount, second == 0 ? nil : sealedSamples, "second \(second)")
            XCTAssertEqual(state.open.count, Int64(second + 1), "second \(second)")
        }
    }
}
