import Foundation
import Kamailio
import TestSupport
import XCTest

/// The launcher `callstorm run` and the tests share: the command line it builds, a Kamailio that fails at start
/// reported with its log, and a stop that leaves no process behind.
final class KamailioServerTests: XCTestCase {
    func testArgumentsListenOnLoopbackOverUDPAndTCPAndCarryEveryDefine() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/etc/k.cfg"), sharedMemoryMB: 64)
        options.defines = ["SIP_PASSWORD=\"s\""]
            + KamailioOptions.pushDefines(url: "http://127.0.0.1:2197", token: "jwt", timeoutMillis: 4000)
        XCTAssertEqual(options.arguments(modules: "/mods", runDirectory: "/run/k", port: 5070), [
            "-f", "/etc/k.cfg", "-DD", "-E", "-L", "/mods", "-Y", "/run/k",
            "-l", "udp:127.0.0.1:5070", "-l", "tcp:127.0.0.1:5070", "-m", "64", "-M", "8",
            "-A", "SIP_PASSWORD=\"s\"", "-A", "WITH_PUSH", "-A", "PUSH_URL=\"http://127.0.0.1:2197\"",
            "-A", "PUSH_JWT=\"jwt\"", "-A", "PUSH_TIMEOUT=4000",
        ])
        XCTAssertEqual(KamailioOptions.pushDefines(url: "http://h:1", token: nil),
                       ["WITH_PUSH", "PUSH_URL=\"http://h:1\""])
    }

    func testAConfigurationKamailioRefusesFailsTheStartWithItsLog() throws {
        let dir = try TemporaryDirectory.make("kamailio-bad")
        defer { TemporaryDirectory.remove(dir) }
        let config = dir.appendingPathComponent("bad.cfg")
        try "#!KAMAILIO\nloadmodule \"no_such_module.so\"\n".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try KamailioServer(options: KamailioOptions(configuration: config))) { error in
            guard case KamailioServer.Failure.exited(let log) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue(log.contains("no_such_module"), log)
        }
    }

    func testStopEndsKamailioAndEachOfItsWorkersByPID() throws {
        let kamailio = try KamailioServer()
        let workers = KamailioServer.children(of: kamailio.pid)
        XCTAssertFalse(workers.isEmpty, "Kamailio forks its SIP workers")
        kamailio.stop()
        for pid in [kamailio.pid] + workers {
            XCTAssertFalse(running(pid), "process \(pid) outlived stop()")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: kamailio.directory.path))
    }

    /// Whether `pid` exists and is not a zombie (an orphaned worker waits for whoever reaps orphans here).
    private func running(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
