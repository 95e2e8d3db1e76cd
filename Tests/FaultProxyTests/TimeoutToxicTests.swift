@testable import FaultProxy
import TestSupport
import XCTest

final class TimeoutToxicTests: XCTestCase {
    func testBlackholesThenClosesAfterTheTimeout() throws {
        var pipe = try VirtualPipe([ToxicSpec("timeout", ["timeout": 300])])
        pipe.send(.data([1, 2, 3]), atMillis: 10)
        pipe.send(.end, atMillis: 20)
        pipe.run(untilMillis: 1_000)
        XCTAssertEqual(pipe.bytes, [])
        XCTAssertNil(pipe.millis(of: .end))
        XCTAssertEqual(pipe.millis(of: .close), 300)
    }

    func testZeroNeverCloses() throws {
        var pipe = try VirtualPipe([ToxicSpec("timeout", ["timeout": 0])])
        pipe.send(.data([1]), atMillis: 1)
        pipe.run(untilMillis: 100_000)
        XCTAssertTrue(pipe.released.isEmpty)
    }

    func testRequestThroughABlackholeTimesOut() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("timeout", direction: .upstream, ["timeout": 0])])
        defer { harness.stop() }
        XCTAssertEqual(fetch(harness.proxyURL + "/", timeoutMillis: 200).failureKind, "timeout")
        XCTAssertGreaterThan(harness.proxy.stats.toxics["timeout"]?.bytesDropped ?? 0, 0)
    }

    func testTimeoutClosesTheConnection() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("timeout", direction: .upstream, ["timeout": 80])])
        defer { harness.stop() }
        let result = fetch(harness.proxyURL + "/", timeoutMillis: 3_000)
        XCTAssertEqual(result.failureKind, "reset", "closed with nothing answered: \(result)")
        // The proxy publishes its stats after the loop turn that closed the connection, maybe after the client saw it.
        XCTAssertTrue(eventually { harness.proxy.stats.toxics["timeout"]?.closes == 1 }, "\(harness.proxy.stats)")
    }
}
