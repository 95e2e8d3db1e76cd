import Metrics
@testable import Reports
import XCTest

/// The fault table compares each window with the fault-free baseline, never with "outside this window" (which
/// would hold the other windows' faults).
final class FaultTableTests: XCTestCase {
    func testEachWindowIsComparedWithTheCallsAndSecondsNoWindowTouched() {
        let origin: UInt64 = 1_000_000_000_000
        var recorder = Recorder(runStartNanos: origin)
        func at(_ second: Double) -> UInt64 { origin + UInt64(second * 1e9) }
        for i in 0..<50 {
            recorder.record(Metric(named: "no_fault.push_to_report"), micros: 2_000, atNanos: at(Double(i) * 0.2))
            recorder.record(Metric(named: "fault.slow.push_to_report"), micros: 400_000, atNanos: at(2.5))
            // The late-report window's effect lasts past its end: it must not leak into the baseline.
            recorder.record(Metric(named: "fault.late.push_to_report"), micros: 3_001_000, atNanos: at(6.5))
        }
        for s in [1, 8, 9] { recorder.count(Metric(named: "errors.reset"), by: 2, atNanos: at(Double(s) + 0.5)) }
        recorder.count(Metric(named: "errors.reset"), by: 30, atNanos: at(2.5))
        recorder.seal()
        var result = ReportFixtures.result()
        result.recorder = recorder
        result.faultWindows = [FaultSpan(fromSecond: 2, toSecond: 3, label: "slow", what: "push: delay 400ms"),
                               FaultSpan(fromSecond: 6, toSecond: 7, label: "late", what: "device: report_delay")]
        let html = HTMLReport(result).render()
        let table = String(html[html.range(of: "<section id=\"faults\">")!.lowerBound...].prefix(3_000))
        XCTAssertTrue(table.contains("<tr id=\"fault-slow\">"), table)
        XCTAssertTrue(table.contains("<td>400 ms → 2 ms</td>") || table.contains("400.0 ms → 2.0 ms"), table)
        XCTAssertTrue(table.contains("→ 2"), table)
        XCTAssertFalse(table.contains("→ 3001"), "the late window's 3 s reports are not in anyone's baseline")
        // errors/s: 30 in the slow window's one second; the baseline holds seconds 0, 1, 4, 5, 8, 9 … (2 each in
        // 1, 8, 9), never the windows' own seconds or the deadline after them.
        XCTAssertTrue(table.contains("<td>30.0 → "), table)
        XCTAssertTrue(table.contains("href=\"#push-timeline\""), "each window links to its shading")
    }

    func testARunWithSocketsComparesLostSocketsAndTheInjectedOnes() {
        let origin: UInt64 = 1_000_000_000_000
        var recorder = Recorder(runStartNanos: origin)
        func at(_ second: Double) -> UInt64 { origin + UInt64(second * 1e9) }
        recorder.count(Metric(named: "socket.opened"), by: 100, atNanos: at(0.5))
        recorder.count(Metric(named: "socket.lost"), by: 12, atNanos: at(2.5))
        recorder.count(Metric(named: "socket.lost.injected"), by: 10, atNanos: at(2.5))
        recorder.count(Metric(named: "socket.lost"), by: 1, atNanos: at(8.5))
        recorder.seal()
        var result = ReportFixtures.result()
        result.recorder = recorder
        result.faultWindows = [FaultSpan(fromSecond: 2, toSecond: 3, label: "drops", what: "device: socket_drop")]
        let html = HTMLReport(result).render()
        let table = String(html[html.range(of: "<section id=\"faults\">")!.lowerBound...].prefix(3_000))
        XCTAssertTrue(table.contains("<th>sockets lost/s</th><th>of them injected/s</th>"), table)
        XCTAssertTrue(table.contains("<td>12.0 → 0.2</td><td>10.0 → 0.0</td>"), table)
        XCTAssertFalse(HTMLReport(ReportFixtures.result()).render().contains("sockets lost/s"), "no sockets, no column")
    }
}
