@testable import CallstormCLI
import Foundation
import Metrics
import TestSupport
import XCTest

/// `target.sip.kamailio`: `callstorm run` starts Kamailio itself, with the push route pointed at the run's
/// gateway and a fresh provider token, and stops it by PID when the run ends.
final class KamailioLaunchRunTests: XCTestCase {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/sip")

    /// Kamailio processes whose parent is this test process (the run starts Kamailio in-process).
    private func kamailioChildren() -> [Int32] {
        KamailioServer.children(of: getpid()).filter { pid in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return name.hasPrefix("kamailio") && !stat.contains(") Z ")
        }
    }

    func testSleepingDevicesAreWokenThroughAKamailioTheRunStartsAndStops() throws {
        XCTAssertEqual(kamailioChildren(), [], "a Kamailio from an earlier test is still running")
        let dir = try TemporaryDirectory.make("sip-launch")
        defer { TemporaryDirectory.remove(dir) }
        let text = try String(contentsOf: Self.examples.appendingPathComponent("incoming-wake.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "target: { sip: { registrar: \"127.0.0.1:5060\" } }",
                                  with: "target: { sip: { kamailio: true } }")
            .replacingOccurrences(of: "listen: \"127.0.0.1:2197\"", with: "listen: \"127.0.0.1:0\"")
        XCTAssertTrue(text.contains("kamailio: true"))
        let outcome = try runScenario(text, in: dir)
        let c = outcome.result.recorder.counters
        let log = (try? String(contentsOf: outcome.runDirectory.appendingPathComponent("kamailio.log"),
                               encoding: .utf8)) ?? "no kamailio.log"
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(c["calls.started"] ?? 0),
                                    "\(c) \(log.suffix(2000))")
        XCTAssertGreaterThan(outcome.result.recorder.histograms[MetricName.pushToRegister]?.totalCount ?? 0, 0,
                             "the push route reached the run's gateway: \(c) \(log.suffix(2000))")
        XCTAssertTrue(log.contains("udp: 127.0.0.1"), "Kamailio's log is kept in the run directory: \(log)")
        XCTAssertEqual(kamailioChildren(), [], "the run stopped its Kamailio")
    }
}
