import EventPolling
import Foundation
import HTTPServer
import XCTest

/// The loop threads' name and scheduling (`HTTPServerConfiguration.threadName`/`threadScheduling`): what the
/// embedded reference target's loop runs at in a capacity run, read back on the loop thread itself from
/// /proc/thread-self (what top and the per-thread measurements in docs/BENCHMARKS.md read).
final class HTTPServerThreadTests: XCTestCase {
    /// The handler's own thread: its name, nice (field 19 of stat) and policy (field 41), as "name nice policy".
    private static let threadReport: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void = {
        _, respond in
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
        let fields = stat.lastIndex(of: ")").map { stat[stat.index($0, offsetBy: 2)...].split(separator: " ") } ?? []
        let nice = fields.count > 38 ? String(fields[16]) : "?"
        let policy = fields.count > 38 ? String(fields[38]) : "?"
        respond(.text(200, "\(name.trimmingCharacters(in: .whitespacesAndNewlines)) \(nice) \(policy)"))
    }

    func testTheLoopThreadsRunNamedAndAtTheSchedulingAsked() throws {
        var config = HTTPServerConfiguration()
        config.threadName = "t.loop"
        config.threadScheduling = ThreadScheduling(.batch, nice: 4)
        let server = try startServer(config, Self.threadReport)
        defer { server.stop() }
        let response = try TestClient(port: server.port).request("GET", "/")
        XCTAssertEqual(response.bodyString, "t.loop.0 4 3")
    }

    func testByDefaultTheLoopThreadsKeepThePolicyTheyInherit() throws {
        let server = try startServer(HTTPServerConfiguration(), Self.threadReport)
        defer { server.stop() }
        let words = try TestClient(port: server.port).request("GET", "/").bodyString.split(separator: " ")
        XCTAssertEqual(words.last, "0", "SCHED_OTHER")
        XCTAssertNotEqual(words.first, "t.loop.0")
    }
}
