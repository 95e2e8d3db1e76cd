import Foundation
import XCTest
@testable import Metrics

import CLinux

/// Pins the constant-memory promise of DESIGN.md §9 (k6 keeps every sample and runs out of memory after hours):
/// a metric's memory is fixed once its histograms exist, whatever the number of samples.
final class RecorderMemoryTests: XCTestCase {
    /// Bytes the C heap hands out right now (glibc's allocator, which the test process uses).
    private func heapInUse() -> Int {
        Int(clinux_glibc_heap_in_use())
    }

    func testTenMillionSamplesDoNotGrowAMetricsMemoryAfterTheFirstMillion() {
        var recorder = Recorder(runStartNanos: 0)
        // Latency-like values over the whole trackable range (1 µs … 1 h, log-spread), precomputed from a seeded
        // LCG so the loop is cheap even in a debug build; the first million touch every bucket they can.
        var state: UInt64 = 42
        let values: [Int64] = (0..<4096).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int64((state >> 33) % 3_600_000_000) >> Int((state >> 20) % 32)
        }
        // All samples fall in the run's first second: memory that may grow with run time (one sealed interval
        // per second) stays out of the comparison, so any growth left comes from the number of samples.
        func record(_ range: Range<Int>) {
            for i in range {
                recorder.record(Metric(named: "push_to_report"), micros: values[i & 4095], atNanos: UInt64(i / 16))
            }
        }
        record(0..<1_000_000)
        recorder.count(Metric(named: "calls.completed"), by: 1, atNanos: 0)
        let afterFirstMillion = heapInUse()
        record(1_000_000..<10_000_000)
        for _ in 0..<1_000 { recorder.count(Metric(named: "calls.completed"), by: 9_000, atNanos: 1) }
        let afterTenMillion = heapInUse()

        XCTAssertEqual(recorder.histograms["push_to_report"]?.totalCount, 10_000_000)
        XCTAssertEqual(recorder.counters["calls.completed"], 9_000_001)
        // Keeping the samples themselves would take ≥ 72 MB more (8 bytes each); a leak of a few bytes per
        // sample would show as megabytes. The slack covers allocator bookkeeping only.
        let growth = afterTenMillion - afterFirstMillion
        XCTAssertLessThan(growth, 64 << 10, "recording 9 M more samples grew the heap by \(growth) bytes")
    }

    /// A segment (series only, empty totals) decodes without a dense histogram per metric: a long run's report
    /// reads thousands of them, and ~190 kB each made `callstorm report` of a 10-minute soak take 1.6 GB.
    func testDecodingASegmentWithEmptyTotalsAllocatesNoDenseHistograms() throws {
        var recorder = Recorder(runStartNanos: 0)
        for m in 0..<30 { recorder.record(Metric(named: "metric.\(m)"), micros: Int64(100 + m), atNanos: 0) }
        recorder.seal()
        let segment = recorder.detachSeries(before: 1)
        let data = try JSONEncoder().encode(segment.image)
        let before = heapInUse()
        let decoded = try JSONDecoder().decode(Recorder.self, from: data)
        let growth = heapInUse() - before
        XCTAssertEqual(decoded.intervals.count, 30)
        // 30 dense histograms would be ~5.6 MB; the sparse intervals and names are a few kB.
        XCTAssertLessThan(growth, 512 << 10, "decoding one segment grew the heap by \(growth) bytes")
    }
}
