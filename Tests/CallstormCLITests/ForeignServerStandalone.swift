import Foundation
import XCTest

/// ForeignCallServer on its own, for scripts/foreign-acceptance.sh: with `FOREIGN_SERVE_DIR` set it serves until
/// killed (at most `FOREIGN_SERVE_SECONDS`, default an hour), exactly as the tests stand it up. Skipped otherwise.
///
/// It writes, in `FOREIGN_SERVE_DIR`: `key.pem` (the ES256 key its provider tokens are signed with, for the
/// gateway's `push.auth.keys`), `port` (once serving), `stats` (GETs served and pushes the gateway refused, every
/// second) and the race flows ForeignRaceTests runs (`merge-vs-end.flows.yaml`, `unmerge-vs-join.flows.yaml`), so
/// the script runs the same scenarios. `FOREIGN_GATEWAY_PORT` is the gateway's port; `FOREIGN_BUGS` names
/// deliberate races, comma-separated (`ForeignCallServer.Bug`).
final class ForeignServerStandalone: XCTestCase {
    func testServeUntilKilled() throws {
        let env = ProcessInfo.processInfo.environment
        guard let path = env["FOREIGN_SERVE_DIR"] else {
            throw XCTSkip("FOREIGN_SERVE_DIR is not set (scripts/foreign-acceptance.sh sets it)")
        }
        let dir = URL(fileURLWithPath: path)
        let gatewayPort = try XCTUnwrap(env["FOREIGN_GATEWAY_PORT"].flatMap(Int.init), "FOREIGN_GATEWAY_PORT")
        var bugs: Set<ForeignCallServer.Bug> = []
        for name in (env["FOREIGN_BUGS"] ?? "").split(separator: ",") {
            bugs.insert(try XCTUnwrap(ForeignCallServer.Bug(rawValue: String(name)), "unknown bug \(name)"))
        }
        let seconds = env["FOREIGN_SERVE_SECONDS"].flatMap(Int.init) ?? 3600
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, flows) in [("merge-vs-end", ForeignRaceTests.mergeVsEnd),
                              ("unmerge-vs-join", ForeignRaceTests.unmergeVsJoin)] {
            try flows.write(to: dir.appendingPathComponent("\(name).flows.yaml"), atomically: true, encoding: .utf8)
        }
        let server = try ForeignServerTests.secured(gatewayPort: gatewayPort, in: dir, bugs: bugs)
        try ForeignServerTests.serving(server) { port in
            try "\(port)\n".write(to: dir.appendingPathComponent("port"), atomically: true, encoding: .utf8)
            for _ in 0..<seconds {
                // limits: a standalone server for scripts, serving for `seconds` of real time and writing its
                // stats once a second; nothing is asserted on its timing.
                sleep(1)
                let stats = "gets \(server.gets.load(ordering: .relaxed))\n"
                    + "pushes_failed \(server.pushesFailed)\n"
                try? stats.write(to: dir.appendingPathComponent("stats"), atomically: true, encoding: .utf8)
            }
        }
    }
}
