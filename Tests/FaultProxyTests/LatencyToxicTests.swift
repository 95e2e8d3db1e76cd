@testable import FaultProxy
import XCTest

final class LatencyToxicTests: XCTestCase {
    func testEveryChunkIsHeldForTheLatencyInVirtualTime() throws {
        var pipe = try VirtualPipe([ToxicSpec("latency", ["latency": 100])])
        pipe.send(.data([1]), atMillis: 0)
        pipe.send(.data([2]), atMillis: 30)
        pipe.send(.end, atMillis: 40)
        pipe.run(untilMillis: 1_000)
        XCTAssertEqual(pipe.dataMillis, [100, 130])
        XCTAssertEqual(pipe.millis(of: .end), 130, "the end follows the last chunk")
        XCTAssertEqual(pipe.bytes, [1, 2])
    }

    func testJitterStaysInRangeAndKeepsOrder() throws {
        var pipe = try VirtualPipe([ToxicSpec("latency", ["latency": 50, "jitter": 20])])
        for i in 0..<50 { pipe.send(.data([UInt8(i)]), atMillis: Double(i)) }
        pipe.run(untilMillis: 1_000)
        XCTAssertEqual(pipe.bytes, (0..<50).map(UInt8.init))
        XCTAssertEqual(pipe.dataMillis, pipe.dataMillis.sorted())
        let first = try XCTUnwrap(pipe.dataMillis.first)
        XCTAssert((30...70).contains(first), "\(first)")
    }

    func testLatencyAddsAtLeastTheDelayToAnHTTPRequest() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("latency", direction: .both, ["latency": 60])])
        defer { harness.stop() }
        let proxied = elapsed { XCTAssertEqual(try? fetch(harness.proxyURL + "/").get().status, 200) }
        // One chunk each way: at least 2 × 60 ms, a floor the proxy's monotonic timers guarantee however loaded
        // the machine is; exact release times are pinned in virtual time above.
        XCTAssertGreaterThanOrEqual(proxied, 0.115, "proxied \(proxied)")
    }
}
