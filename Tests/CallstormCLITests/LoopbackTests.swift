@testable import CallstormCLI
import Foundation
import TestSupport
import XCTest

final class LoopbackTests: XCTestCase {
    func testLoopbackAddressesAreAllowed() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] { XCTAssertTrue(Loopback.isLoopback(host), host) }
    }

    func testOtherAddressesAreRefused() {
        for host in ["10.0.0.1", "192.168.1.1", "8.8.8.8", "example.com", "128.0.0.1", "0.0.0.0"] {
            XCTAssertFalse(Loopback.isLoopback(host), host)
        }
    }

    func testHostIsTakenFromURL() {
        XCTAssertEqual(Loopback.host(ofURL: "http://[::1]:8080/x"), "::1")
        XCTAssertEqual(Loopback.host(ofURL: "http://10.1.1.1:80"), "10.1.1.1")
    }

    func testNonLoopbackTargetIsRefusedWithExitCode2() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let smoke = root.appendingPathComponent("Scenarios/smoke.yaml").path
        let code = Command.run(["run", smoke, "--target", "http://10.0.0.1:8080", "--quiet"])
        XCTAssertEqual(code, .invalidInput)
    }

    func testRemoteTargetErrorNamesTheFlagThatAllowsIt() {
        let message = CLIError.nonLoopback(host: "example.com", role: "target").description
        XCTAssertTrue(message.contains("--allow-remote example.com"), message)
        XCTAssertEqual(CLIError.nonLoopback(host: "10.1.2.3", role: "target").exitCode, .invalidInput)
    }

    func testAllowRemoteAdmitsOnlyTheHostsItNames() throws {
        let allowed = try Loopback.allowedHosts("10.1.2.3, Example.com,[fd00::1]")
        XCTAssertEqual(allowed, ["10.1.2.3", "example.com", "fd00::1"])
        XCTAssertNoThrow(try Loopback.require("10.1.2.3", role: "target", allowed: allowed))
        XCTAssertNoThrow(try Loopback.require("EXAMPLE.COM", role: "target", allowed: allowed))
        XCTAssertNoThrow(try Loopback.require("[fd00::1]", role: "target", allowed: allowed))
        XCTAssertNoThrow(try Loopback.require("127.0.0.1", role: "target", allowed: []))
        XCTAssertThrowsError(try Loopback.require("10.1.2.4", role: "target", allowed: allowed))
        XCTAssertThrowsError(try Loopback.require("0.0.0.0", role: "push listener", allowed: allowed))
        XCTAssertThrowsError(try Loopback.allowedHosts("--quiet"), "the old boolean form takes the next flag")
        XCTAssertThrowsError(try Loopback.allowedHosts(","))
    }

    /// Acceptance 5 of issue 10: a scenario aimed at 10.1.2.3 or example.com exits 2 naming `--allow-remote`,
    /// and fails before anything is started (no run directory, so no gateway, target or device ever ran).
    func testScenarioWithARemoteTargetExits2BeforeSendingAnything() throws {
        let dir = try TemporaryDirectory.make("remote")
        defer { TemporaryDirectory.remove(dir) }
        let cases: [(target: String, push: String, args: [String], host: String, role: String)] = [
            ("http://10.1.2.3:8080", "127.0.0.1:0", [], "10.1.2.3", "target"),
            ("https://example.com", "127.0.0.1:0", [], "example.com", "target"),
            ("http://10.1.2.3:8080", "127.0.0.1:0", ["--allow-remote", "10.1.2.4"], "10.1.2.3", "target"),
            ("http://127.0.0.1:9", "0.0.0.0:0", ["--allow-remote", "10.1.2.3"], "0.0.0.0", "push listener"),
        ]
        for (i, c) in cases.enumerated() {
            let file = dir.appendingPathComponent("remote\(i).yaml")
            try """
                name: remote
                devices: 4
                target: { url: "\(c.target)" }
                push: { listen: "\(c.push)" }
                load:
                  - hold: { rate: 1/s, for: 1s }
                """.write(to: file, atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent("run\(i)")
            let (code, message) = try Self.runCapturingStderr(["run", file.path, "--out", out.path, "--quiet"] + c.args)
            XCTAssertEqual(code, .invalidInput, c.target)
            XCTAssertTrue(message.contains("--allow-remote \(c.host)"), message)
            XCTAssertTrue(message.contains("as the \(c.role)"), message)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing may start for \(c.target)")
        }
    }

    func testTargetAndGatewayCommandsRefuseANonLoopbackListenAddress() throws {
        let (target, targetMessage) = try Self.runCapturingStderr(["target", "--listen", "0.0.0.0:0"])
        XCTAssertEqual(target, .invalidInput)
        XCTAssertTrue(targetMessage.contains("--allow-remote 0.0.0.0"), targetMessage)
        let (apns, apnsMessage) = try Self.runCapturingStderr(["target", "--apns-url", "http://example.com:2197"])
        XCTAssertEqual(apns, .invalidInput)
        XCTAssertTrue(apnsMessage.contains("--allow-remote example.com"), apnsMessage)
        let (gateway, gatewayMessage) = try Self.runCapturingStderr(["gateway", "--listen", "10.1.2.3:2197"])
        XCTAssertEqual(gateway, .invalidInput)
        XCTAssertTrue(gatewayMessage.contains("--allow-remote 10.1.2.3"), gatewayMessage)
    }

    /// Runs a command in-process with stderr sent to a file, and returns its exit code and what it wrote there.
    static func runCapturingStderr(_ args: [String]) throws -> (ExitCode, String) {
        let url = TemporaryDirectory.path("stderr")
        defer { TemporaryDirectory.remove(url) }
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let file = try FileHandle(forWritingTo: url)
        let saved = dup(2)
        dup2(file.fileDescriptor, 2)
        let code = Command.run(args)
        dup2(saved, 2)
        close(saved)
        try file.close()
        return (code, try String(contentsOf: url, encoding: .utf8))
    }

    func testUnknownFlagIsUsageError() {
        XCTAssertEqual(Command.run(["run", "x.yaml", "--frobnicate"]), .invalidInput)
    }
}
