import Glibc
@testable import FaultProxy
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
        let harness = try ProxiedServer(toxics: [ToxicSpec("reset_peer", ["timeout": 0])])
        defer { harness.stop() }
        let client = try RawClient(port: harness.proxy.port)
        client.get("/")
        let result = client.readAll()
        XCTAssertEqual(result.errno, ECONNRESET)
        XCTAssertTrue(result.bytes.isEmpty)
        XCTAssertTrue(eventually { harness.proxy.stats.resets == 1 })
        XCTAssertEqual(harness.proxy.stats.toxics["reset_peer"]?.resets, 1)
    }

    func testHTTPClientClassifiesTheResetAsReset() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("reset_peer", ["timeout": 40])])
        defer { harness.stop() }
        XCTAssertEqual(fetch(harness.proxyURL + "/hold", timeoutMillis: 3_000).failureKind, "reset")
    }
}
