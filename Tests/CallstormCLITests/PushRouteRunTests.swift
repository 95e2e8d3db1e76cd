import Foundation
import TestSupport
import XCTest

/// Issue 17, acceptance 2: a run whose embedded target pushes through the gateway's CONNECT port with
/// certificate auth (`push: { auth: certificate, via: connect }`) completes like the default one, and the
/// summary says how the pushes came in.
final class PushRouteRunTests: XCTestCase {
    private func scenario(push: String) -> String {
        """
        name: push-route
        seed: 17
        devices: 40
        push: { deadline: 2s\(push) }
        load:
          - hold: { rate: 10/s, for: 2s }
        behavior:
          answer_after: 50ms
          talk: 100ms
        drain: 10s
        slo:
          deadline_miss_rate: "== 0"
        """
    }

    private func run(_ name: String, push: String, in dir: URL) throws -> SummaryFile {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        try scenario(push: push).write(to: dir.appendingPathComponent("\(name).yaml"), atomically: true,
                                       encoding: .utf8)
        let out = dir.appendingPathComponent(name)
        let result = try ChildProcess.run(binary, ["run", "\(name).yaml", "--out", out.path], in: dir, logs: dir,
                                          name: name, seconds: 120)
        XCTAssertEqual(result.status, 0, "\(name): \(result.err)")
        return try SummaryFile(out.appendingPathComponent("summary.json"))
    }

    func testCertificateAuthThroughTheCONNECTPortCompletesLikeTheDefaultRun() throws {
        let dir = try TemporaryDirectory.make("route")
        defer { TemporaryDirectory.remove(dir) }
        let plain = try run("default", push: "", in: dir)
        let routed = try run("connect", push: ", auth: certificate, via: connect", in: dir)
        for summary in [plain, routed] {
            XCTAssertTrue(summary.passed, "\(summary.reasons)")
            XCTAssertEqual(summary.counters["gateway.pushes.rejected"], 0)
        }
        XCTAssertEqual(routed.counters["calls.started"], plain.counters["calls.started"], "the same seed, same plan")
        XCTAssertEqual(routed.counters["gateway.pushes.accepted"], plain.counters["gateway.pushes.accepted"])
        XCTAssertEqual(routed.counters["pushes.delivered"], plain.counters["pushes.delivered"])
        XCTAssertGreaterThan(routed.counters["pushes.delivered"] ?? 0, 10)
        XCTAssertGreaterThanOrEqual(routed.counters["gateway.connect.tunnels"] ?? 0, 1)
        XCTAssertGreaterThanOrEqual(routed.counters["gateway.connections.certificate"] ?? 0, 1)
        XCTAssertNil(routed.counters["gateway.connections.token"])
        XCTAssertGreaterThanOrEqual(plain.counters["gateway.connections.token"] ?? 0, 1)
        XCTAssertNil(plain.counters["gateway.connect.tunnels"])
    }
}
