@testable import CallstormCLI
import Dispatch
import EventPolling
import Foundation
import Scenario
import XCTest

/// The embedded reference target's threads (its HTTP loop and its push client's thread) run at
/// `CALLSTORM_TARGET_PRIORITY` (SCHED_BATCH by default) and the gateway's loop at `CALLSTORM_GATEWAY_PRIORITY`
/// (SCHED_FIFO by default, as the workers), each named for top and the per-thread measurements: read back from /proc/self/task.
final class EmbeddedThreadsTests: XCTestCase {
    /// Every thread of this process by name: (nice, policy) from its stat.
    private func threadsByName() -> [String: (nice: Int32, policy: Int32)] {
        var found: [String: (Int32, Int32)] = [:]
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            let base = "/proc/self/task/\(tid)/"
            guard let comm = try? String(contentsOfFile: base + "comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: base + "stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 38, let nice = Int32(fields[16]), let policy = Int32(fields[38]) else { continue }
            found[comm.trimmingCharacters(in: .whitespacesAndNewlines)] = (nice, policy)
        }
        return found
    }

    func testTheTargetsThreadsRunAtTheTargetsSchedulingAndTheGatewayAtItsOwn() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("threads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let push = PushSpec(listenHost: "127.0.0.1", listenPort: 0, bundleID: "com.example.callstorm")
        XCTAssertTrue(push.tls, "the push client's own thread exists only for an https gateway")
        let servers = try EmbeddedServers(push: push, stateDirectory: state.path)
        defer { servers.stop() }
        _ = try servers.startTarget(bundleID: push.bundleID)
        // Each thread names itself as it starts (after setting its scheduling), which may be just after
        // `startTarget` or the gateway's start returns: wait for every name (up to 10 s; the assertions below say
        // which one never came).
        var threads = threadsByName()
        let names = ["cs.target.0", "cs.target.push", "cs.gateway.0"]
        for _ in 0..<1000 where names.contains(where: { threads[$0] == nil }) {
            usleep(10_000)
            threads = threadsByName()
        }
        let target = EmbeddedServers.targetScheduling, gateway = EmbeddedServers.gatewayScheduling
        if ProcessInfo.processInfo.environment["CALLSTORM_TARGET_PRIORITY"] == nil {
            XCTAssertEqual(target, .batch)
        }
        for name in ["cs.target.0", "cs.target.push"] {
            XCTAssertEqual(threads[name]?.policy, target.policy, name)
            XCTAssertGreaterThanOrEqual(threads[name]?.nice ?? -99, target.nice, name)
        }
        guard gateway.priority == .fifo else {
            XCTAssertEqual(threads["cs.gateway.0"]?.policy, gateway.policy, "cs.gateway.0")
            return
        }
        if ProcessInfo.processInfo.environment["CALLSTORM_GATEWAY_PRIORITY"] == nil {
            XCTAssertEqual(gateway, .fifo, "beside the workers, which run at fifo")
        }
        // SCHED_FIFO where this process may have it, else SCHED_OTHER (refused without CAP_SYS_NICE).
        XCTAssertEqual(threads["cs.gateway.0"]?.policy, ThreadScheduling.realtimeAllowed() ? 1 : 0, "cs.gateway.0")
    }
}
