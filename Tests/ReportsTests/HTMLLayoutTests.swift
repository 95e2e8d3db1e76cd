import Foundation
import Metrics
@testable import Reports
import TestSupport
import XCTest

/// The report read on a 1,280 px page (issue 35): the fault table of a run with every column family (push,
/// errors, sockets, the SIP wake-up path's parts) and long window settings fits the page, with no cell's content
/// cut. Measured in headless Chromium by a script the test appends to a copy of report.html.
final class HTMLLayoutTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = TemporaryDirectory.path("layout")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    /// A run with five windows, each set to several faults, over a recorder with every family the table shows.
    private func wideResult() -> RunResult {
        let origin: UInt64 = 1_000_000_000_000
        var recorder = Recorder(runStartNanos: origin)
        func at(_ second: Double) -> UInt64 { origin + UInt64(second * 1e9) }
        let windows = ["push-brownout-and-goaway", "sip-loss-with-late-wake", "socket-storm", "device-offline",
                       "network-latency-and-reset"]
        for (i, name) in windows.enumerated() {
            for metric in ["push_to_report", "push_delivery", "invite_to_push", "push_to_register", "wake.connect",
                           "wake.handshake", "wake.register", "register_to_invite"] {
                recorder.record(Metric(named: "fault.\(name).\(metric)"), micros: 1_234_567, atNanos: at(Double(i)))
                recorder.record(Metric(named: "no_fault.\(metric)"), micros: 12_345, atNanos: at(Double(i) + 0.5))
            }
        }
        for counter in ["errors.reset", "errors.timeout", "calls.missed", "calls.failed", "push.deadline_missed",
                        "socket.opened", "socket.lost", "socket.lost.injected"] {
            recorder.count(Metric(named: counter), by: 12_345, atNanos: at(1.5))
        }
        recorder.seal()
        var result = ReportFixtures.result()
        result.recorder = recorder
        result.faultWindows = windows.enumerated().map { i, name in
            var span = FaultSpan(fromSecond: Double(i), toSecond: Double(i) + 0.9, label: name,
                                 what: "push: brownout 50% for 2s, goaway every 500ms, delay 250ms±100ms; "
                                     + "sip: loss 10% inbound INVITE, late_wake 30% 2s; device: offline 5%")
            span.injected = ["push.dropped": 12_345, "sip.datagram_lost": 6_789, "device.offline": 321]
            return span
        }
        return result
    }

    func testTheFaultTableOfAWideRunFitsA1280PixelPageWithNoCellCut() throws {
        let files = try ReportWriter.write(wideResult(), to: directory.appendingPathComponent("run"))
        var html = try String(contentsOf: files.html, encoding: .utf8)
        let probe = """
            <script>
            (function () {
              const table = document.querySelector("table.faults");
              const cut = [...table.querySelectorAll("th, td")].filter(c => c.scrollWidth > c.clientWidth + 1);
              document.body.setAttribute("data-page-width", document.documentElement.clientWidth);
              document.body.setAttribute("data-table-right", Math.ceil(table.getBoundingClientRect().right));
              document.body.setAttribute("data-cut-cells", cut.length);
              document.body.setAttribute("data-columns", table.querySelectorAll("thead th").length);
            })();
            </script>
            """
        html = html.replacingOccurrences(of: "</body>", with: probe + "</body>")
        let page = directory.appendingPathComponent("measured.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let dom = try HeadlessChromium.run(["--window-size=1280,2000", "--dump-dom", page.absoluteString],
                                           profile: directory.appendingPathComponent("profile"))
        XCTAssertEqual(dom.status, 0, dom.stderr)
        func attribute(_ name: String) -> Int? {
            guard let range = dom.stdout.range(of: "\(name)=\"") else { return nil }
            return Int(dom.stdout[range.upperBound...].prefix { $0 != "\"" })
        }
        let width = try XCTUnwrap(attribute("data-page-width"), "the probe ran")
        XCTAssertLessThanOrEqual(width, 1280)
        // Since issue 35 the wake-up path's parts on connections are columns too (wake.connect, .handshake,
        // .register): six SIP wake-up columns, and the table still fits.
        XCTAssertEqual(attribute("data-columns"), 1 + 8 + 6,
                       "window, eight latencies (six SIP wake-up parts), six rates")
        XCTAssertLessThanOrEqual(try XCTUnwrap(attribute("data-table-right")), width, "the table ends inside the page")
        XCTAssertEqual(attribute("data-cut-cells"), 0, "no cell's content is cut")
    }
}
