import Foundation
@testable import Kamailio
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
            "-l", "udp:127.0.0.1:5070", "-l", "tcp:127.0.0.1:5070", "-m", "64", "-M", "8", "-x", "tlsf", "-X", "tlsf",
            "-A", "SIP_PASSWORD=\"s\"", "-A", "WITH_PUSH", "-A", "PUSH_URL=\"http://127.0.0.1:2197\"",
            "-A", "PUSH_JWT=\"jwt\"", "-A", "PUSH_TIMEOUT=4000",
        ])
        XCTAssertEqual(KamailioOptions.pushDefines(url: "http://h:1", token: nil),
                       ["WITH_PUSH", "PUSH_URL=\"http://h:1\""])
    }

    /// The kept push connection's defines as scripts/bench-sip-lib.sh's `push_keep` writes them (and
    /// KamailioKeptPushTests starts Kamailio with): the constant header lines in the connection's user agent, `\r\n`
    /// as written for the configuration's parser; the run's facts show the provider token masked.
    func testTheKeptPushConnectionCarriesTheConstantHeadersAndItsTokenIsNotShown() {
        let defines = KamailioOptions.keptPushDefines(url: "http://127.0.0.1:2197", token: "tok.en",
                                                      topic: "com.example.app.voip")
        XCTAssertEqual(defines, [
            #"PUSH_KEEP="push=>http://127.0.0.1:2197;useragent=\"callstorm\r\nauthorization: bearer tok.en\r\n"#
                + #"apns-push-type: voip\r\napns-topic: com.example.app.voip\r\napns-priority: 10\"""#,
            #"PUSH_KEEP_TOPIC="com.example.app.voip""#,
        ])
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/etc/k.cfg"))
        options.defines = defines
        XCTAssertEqual(options.shownDefines.first,
                       #"PUSH_KEEP="push=>http://127.0.0.1:2197;useragent=\"callstorm\r\nauthorization: bearer "#
                        + #"<provider token>\r\napns-push-type: voip\r\napns-topic: com.example.app.voip\r\n"#
                        + #"apns-priority: 10\"""#)
        XCTAssertFalse(options.shownDefines.joined().contains("tok.en"))
        XCTAssertFalse(KamailioOptions.keptPushDefines(url: "http://h:1", token: nil, topic: "t.voip")[0]
            .contains("authorization"))
    }

    /// Kamailio's default allocator (qm) spent most of a call's instructions finding free fragments: every
    /// Kamailio callstorm starts gets TLSF for both pools unless the options say otherwise.
    func testBothMemoryPoolsGetTheAllocatorTheOptionsNameTLSFByDefault() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/etc/k.cfg"))
        let args = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertEqual(Array(args[args.firstIndex(of: "-x")!...].prefix(4)), ["-x", "tlsf", "-X", "tlsf"])
        options.memoryManager = "fm"
        let fm = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertEqual(Array(fm[fm.firstIndex(of: "-x")!...].prefix(4)), ["-x", "fm", "-X", "fm"])
        options.memoryManager = nil
        let none = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertFalse(none.contains("-x") || none.contains("-X"))
    }

    func testTheForkingRoutesGetTheirParkingAddressOnTheSIPPortUnlessGivenOne() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/etc/k.cfg"))
        options.defines = [KamailioOptions.forkDefine]
        let args = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertEqual(Array(args.suffix(4)), ["-A", "WITH_FORK", "-A", "FORK_PARK=\"sip:127.0.0.1:5070;transport=udp\""])
        options.defines.append("FORK_PARK=\"sip:127.0.0.1:9;transport=udp\"")
        let given = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertEqual(given.filter { $0.hasPrefix("FORK") }, ["FORK_PARK=\"sip:127.0.0.1:9;transport=udp\""])
        options.defines = []
        let none = options.arguments(modules: "/m", runDirectory: "/r", port: 5070)
        XCTAssertFalse(none.contains { $0.hasPrefix("FORK") })
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

    /// A target fault window's crash and restart: SIGKILL leaves no worker holding the port, the restart answers
    /// on the same port with a new main process and appends to the same log, and stop ends it for good.
    func testAKilledKamailioRestartsOnTheSamePortAndStopEndsItForGood() throws {
        let kamailio = try KamailioServer()
        defer { kamailio.stop() }
        let first = kamailio.pid
        let workers = KamailioServer.children(of: first)
        kamailio.kill(signal: SIGKILL)
        XCTAssertFalse(kamailio.running)
        for pid in [first] + workers { XCTAssertFalse(running(pid), "process \(pid) outlived the kill") }
        XCTAssertFalse(KamailioServer.answersOptions(port: kamailio.port, within: 0.3), "nothing answers while down")
        kamailio.kill(signal: SIGKILL)  // nothing to kill: no effect
        try kamailio.restart()
        XCTAssertTrue(kamailio.running)
        XCTAssertNotEqual(kamailio.pid, first)
        XCTAssertTrue(KamailioServer.answersOptions(port: kamailio.port, within: 5), "the restart answers again")
        try kamailio.restart()  // running: no second process
        XCTAssertEqual(KamailioServer.children(of: kamailio.pid).isEmpty, false)
        let second = kamailio.pid
        kamailio.stop()
        XCTAssertFalse(running(second))
        try kamailio.restart()  // stopped for good: nothing starts
        XCTAssertFalse(kamailio.running)
    }

    func testATermKillStopsKamailioInOrderAndItRestarts() throws {
        let kamailio = try KamailioServer()
        defer { kamailio.stop() }
        let first = kamailio.pid
        kamailio.kill(signal: SIGTERM)
        XCTAssertFalse(running(first))
        try kamailio.restart()
        XCTAssertTrue(KamailioServer.answersOptions(port: kamailio.port, within: 5))
    }

    /// Whether `pid` exists and is not a zombie (an orphaned worker waits for whoever reaps orphans here).
    private func running(_ pid: Int32) -> Bool { KamailioServer.isRunning(pid) }
}
