import Glibc
@testable import FaultProxy
import TestSupport
import XCTest

final class ResetPeerToxicTests: XCTestCase {
    func testAsksForAResetAfterTheTimeout() throws {
        var pipe = try VirtualPipe([ToxicSpec("reset_peer", ["timeout": 50])])
        pipe.send(.data([1]), atMillis: 10)
        XCTAssertFalse(pipe.pipeline.resetRequested)
        XCTAssertEqual(pipe.bytes, [1], "data passes until the reset")
        pipe.run(untilMillis: 60)
        XCTAssertTrue(pipe.pipeline.resetRequested)
    }

    func testRawClientSeesConnectionReset() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("reset_peer", ["timeout": 20])])
        defer { harness.stop() }
        let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
        XCTAssertEqual(client.get("/hold"), 0)
        let result = client.readAll()  // blocked in recv when the RST arrives
        XCTAssertEqual(result.errno, ECONNRESET)
        XCTAssertTrue(result.bytes.isEmpty)
        XCTAssertTrue(eventually { harness.proxy.stats.resets == 1 })
        XCTAssertEqual(harness.proxy.stats.toxics["reset_peer"]?.resets, 1)
    }

    func testZeroTimeoutResetsAtOnce() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("reset_peer", ["timeout": 0])])
        defer { harness.stop() }
        let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
        // The kernel reports a reset once, to whichever call comes first: the send or the read.
        let sendError = client.get("/")
        let result = client.readAll()
        XCTAssertTrue(sendError == ECONNRESET || result.errno == ECONNRESET, "send \(sendError), recv \(result.errno)")
        XCTAssertTrue(result.bytes.isEmpty)
    }

    func testHTTPClientClassifiesTheResetAsReset() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("reset_peer", ["timeout": 40])])
        defer { harness.stop() }
        XCTAssertEqual(fetch(harness.proxyURL + "/hold", timeoutMillis: 3_000).failureKind, "reset")
    }
}
