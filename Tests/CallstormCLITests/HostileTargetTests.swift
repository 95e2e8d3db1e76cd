import Foundation
import Metrics
import Reports
import TestSupport
import XCTest

/// A run against a target that refuses, resets, stalls, dribbles, speaks garbage, malformed JSON, 5xx and huge
/// bodies: callstorm survives every one, counts each by kind, and every action is accounted for.
final class HostileTargetTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("hostile")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    func testRunAgainstAHostileTargetAccountsForEveryActionAndCountsEveryErrorKind() throws {
        try runAgainstAHostileTarget(client: "curl")
    }

    /// `target.client: wire` (issue 33) meets every misbehaviour with the error kind libcurl books for it.
    func testTheWireClientCountsEveryErrorKindOfAHostileTargetAsLibcurlDoes() throws {
        try runAgainstAHostileTarget(client: "wire")
    }

    private func runAgainstAHostileTarget(client: String) throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let server = HostileServer(outageEvery: 20, outageMillis: 400)
        try server.start()
        defer { server.stop() }
        let yaml = """
            name: hostile
            seed: 11
            devices: 60
            target: { url: "http://127.0.0.1:\(server.port)", client: \(client) }
            push: { deadline: 1s, tls: false }
            load:
              - hold: { rate: 25/s, for: 4s }
            mix: { incoming-1to1: 100 }
            drain: 4s
            action_timeout: 1s
            workers: 2
            """
        let file = dir.appendingPathComponent("hostile.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent("run")
        let result = try ChildProcess.run(binary, ["run", file.path, "--out", run.path, "--quiet"], in: dir,
                                          logs: dir, name: "hostile", seconds: 90)
        // The run itself completes, but no call did: without any threshold it exits 4 (the run did nothing).
        XCTAssertEqual(result.status, 4, result.err)
        let summary = try ReportSummary.decode(from: Data(contentsOf: run.appendingPathComponent("summary.json")))
        let c = summary.counters

        // Every planned call started (no worker stalled), and none is left in flight after the drain.
        XCTAssertEqual(c["calls.started"], 100, "\(c)")
        XCTAssertEqual(c["calls.in_flight_at_stop"] ?? 0, 0, "a worker stalled: \(summary.notes)")
        let books = try XCTUnwrap(summary.books)
        XCTAssertEqual(books.problems, [])
        let start = try XCTUnwrap(books.actions.first { $0.kind == "start" })
        XCTAssertEqual(start.started, 100)
        XCTAssertEqual(start.started, start.fulfilled + start.failed + (start.unknown ?? 0) + start.timedOut)
        XCTAssertGreaterThan(start.timedOut, 0, "stalls and slow-loris answers time out")
        XCTAssertGreaterThan(start.failed, 0)

        // Every misbehaviour was served, and each shows up under its own error kind.
        XCTAssertEqual(Set(server.served.keys), Set(HostileServer.Behaviour.allCases))
        XCTAssertGreaterThan(server.outages, 0)
        // An outage refuses connections: `refused`, a kind of its own (a killed target looks the same).
        for kind in ["refused", "reset", "timeout", "protocol", "bad_response", "http_503", "response_too_large"] {
            XCTAssertGreaterThan(c["errors.\(kind)"] ?? 0, 0, "errors.\(kind) not counted: \(c.filter { $0.key.hasPrefix("errors.") })")
        }
        XCTAssertEqual(c["errors.other"] ?? 0, 0, "every error has a kind of its own")
        // A refused connection certainly took no effect (`failed`); the others may have (`unknown`, history's info).
        for reason in ["refused", "reset", "protocol", "bad_response", "http_503", "response_too_large"] {
            let name = "action.start.\(reason == "refused" ? "failed" : "unknown").\(reason)"
            XCTAssertGreaterThan(c[name] ?? 0, 0, name)
        }
        // The valid answers let calls go on to wait for pushes that never come; their cleanup ends hit the
        // hostile server too, and are accounted for like every other action.
        XCTAssertGreaterThan(c["action.end.started"] ?? 0, 0)
        XCTAssertEqual(c["devices.registered"], 60)
    }
}
