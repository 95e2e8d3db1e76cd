@testable import FaultProxy
import XCTest

final class BandwidthToxicTests: XCTestCase {
    func testBurstIsSpreadAtTheRateInVirtualTime() throws {
        var pipe = try VirtualPipe([ToxicSpec("bandwidth", ["rate": 100])])  // 100 000 bytes/s
        pipe.send(.data(Array(repeating: 7, count: 50_000)), atMillis: 0)
        pipe.run(untilMillis: 10_000)
        XCTAssertEqual(pipe.bytes.count, 50_000)
        XCTAssertEqual(try XCTUnwrap(pipe.dataMillis.last), 500, accuracy: 1)
        XCTAssertGreaterThan(pipe.dataMillis.count, 10, "released in pieces, not at once")
    }

    func testLargeDownloadTakesAboutSizeOverRate() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("bandwidth", ["rate": 1000])])
        defer { harness.stop() }
        var size = 0
        let seconds = elapsed { size = (try? fetch(harness.proxyURL + "/size/300000").get().body.count) ?? -1 }
        XCTAssertEqual(size, 300_000)
        // 300 KB at 1000 KB/s: never faster than the rate allows (exact release times: the virtual test above).
        XCTAssertGreaterThanOrEqual(seconds, 0.15, "300 KB at 1000 KB/s")
    }
}
