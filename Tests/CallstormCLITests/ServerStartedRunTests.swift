@testable import CallstormCLI
import Foundation
import HTTPServer
import Metrics
import ReferenceTarget
import TestSupport
import XCTest

/// Issue 26: an HTTP target whose calls the server starts. Scenarios/server-started.yaml's devices only register,
/// await the VoIP push, answer and hang up; curl, not callstorm, starts every call on the reference target (an
/// outside caller device it registered itself). The devices' figures are measured and the calls counted as
/// started by an outside party; a run where no outside call came did nothing (exit 4).
final class ServerStartedRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("server-started") }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    private func example(gatewayPort: Int, devices: Int) throws -> String {
        try String(contentsOf: CustomAPIExample.root.appendingPathComponent("Scenarios/server-started.yaml"),
                   encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(gatewayPort)")
            .replacingOccurrences(of: "devices: 8", with: "devices: \(devices)")
            .replacingOccurrences(of: "duration: 10s", with: "duration: 2s")
    }

    /// The reference target on a free port, its pushes sent to a gateway port chosen for the run; `stop` ends both.
    private func startTarget() throws -> (gatewayPort: Int, server: HTTPServer, stop: () -> Void) {
        let gatewayPort = try CustomAPIExample.freePort()
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:\(gatewayPort)"))
        let server = HTTPServer(handler: target)
        try server.start()
        return (gatewayPort, server, {
            server.stop()
            target.close()
        })
    }

    private func curl(_ port: Int, _ path: String, _ body: String) throws -> String {
        try ExternalTool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                      "-H", "content-type: application/json", "-d", body,
                                      "http://127.0.0.1:\(port)\(path)"]).stdout
    }

    func testCallsTheServerStartsAreAnsweredByWaitingDevicesAndMeasured() throws {
        let (gatewayPort, server, stop) = try startTarget()
        defer { stop() }
        let devices = 6
        let yaml = try example(gatewayPort: gatewayPort, devices: devices)
        nonisolated(unsafe) var outcome: Result<RunCommand.Outcome, Error>?
        let done = DispatchSemaphore(value: 0)
        let dir = self.dir!
        DispatchQueue.global().async {
            outcome = Result { try runScenario(yaml, in: dir) { $0.targetURL = "http://127.0.0.1:\(server.port)" } }
            done.signal()
        }
        // The outside caller: a device of the server's own, not one of callstorm's.
        let token = String(repeating: "ab", count: 32)
        XCTAssertEqual(try curl(server.port, "/v1/devices", """
            {"id": "pstn-gw", "handle": {"kind": "phoneNumber", "value": "+15559990000", "displayName": "PSTN"},
             "apnsToken": "\(token)"}
            """), "201")
        func call(_ index: Int) throws -> String {
            try curl(server.port, "/v1/conversations", """
                {"caller": "pstn-gw",
                 "handles": [{"kind": "phoneNumber", "value": "+1555000000\(index)", "displayName": "D"}]}
                """)
        }
        // Each device takes its call once it has registered (404 until then).
        for index in 0..<devices {
            guard eventually(30, every: 0.05, { (try? call(index)) == "201" }) else {
                return XCTFail("device \(index) was never called: \(try call(index))")
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let run = try XCTUnwrap(outcome).get()
        let c = run.result.recorder.counters
        XCTAssertEqual(run.exitCode, .passed, "\(run.verdict.reasons) \(run.result.notes)")
        XCTAssertEqual(c[MetricName.callsStartedByOutside], Int64(devices), "\(c)")
        XCTAssertEqual(c[MetricName.callsCompleted], Int64(devices), "\(c) \(run.result.notes)")
        XCTAssertNil(c[MetricName.callsPlanned], "\(c)")
        XCTAssertNil(c["action.start.started"], "no device started a call: \(c)")
        XCTAssertEqual(c["action.join.fulfilled"], Int64(devices), "\(c)")
        XCTAssertEqual(c["action.end.fulfilled"], Int64(devices), "\(c)")
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, "\(c)")
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)")
        let histograms = run.result.recorder.histograms
        XCTAssertEqual(histograms[MetricName.pushToReport]?.totalCount, Int64(devices))
        XCTAssertEqual(histograms[MetricName.fulfillment("join")]?.totalCount, Int64(devices))
        XCTAssertNil(histograms[MetricName.dialToRing], "the dial is the server's, not observed")
        let csv = try String(contentsOf: run.runDirectory.appendingPathComponent("counters.csv"), encoding: .utf8)
        XCTAssertTrue(csv.contains("\(MetricName.callsStartedByOutside),\(devices)"), csv)
        let html = try String(contentsOf: run.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("\(devices) of the started placed by outside parties"), "books line")
        XCTAssertTrue(html.contains("started by outside parties"), "calls chart")
    }

    func testARunWaitingForOutsideCallsWhereNoneCameDidNothing() throws {
        let (gatewayPort, server, stop) = try startTarget()
        defer { stop() }
        let yaml = try example(gatewayPort: gatewayPort, devices: 2).replacingOccurrences(of: "duration: 2s",
                                                                                           with: "duration: 300ms")
        let run = try runScenario(yaml, in: dir) { $0.targetURL = "http://127.0.0.1:\(server.port)" }
        XCTAssertEqual(run.exitCode, .nothingDone, "\(run.verdict.reasons)")
        XCTAssertEqual(run.result.recorder.counters[MetricName.devicesRegistered], 2)
        XCTAssertEqual(run.result.notes.filter { $0.hasPrefix("No outside party placed a call") }.count, 1,
                       "one note for the run, whatever the workers: \(run.result.notes)")
    }
}
