@testable import CallstormCLI
import Foundation
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
        let message = CLIError.nonLoopbackTarget("example.com").description
        XCTAssertTrue(message.contains("--allow-remote"), message)
        XCTAssertEqual(CLIError.nonLoopbackTarget("10.1.2.3").exitCode, .invalidInput)
    }

    func testUnknownFlagIsUsageError() {
        XCTAssertEqual(Command.run(["run", "x.yaml", "--frobnicate"]), .invalidInput)
    }
}
