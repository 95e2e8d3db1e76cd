@testable import FaultProxy
import TestSupport
import XCTest

final class LimitDataToxicTests: XCTestCase {
    func testPassesTheLimitThenCloses() throws {
        var pipe = try VirtualPipe([ToxicSpec("limit_data", ["bytes": 5])])
        pipe.send(.data([1, 2, 3]), atMillis: 0)
        pipe.send(.data([4, 5, 6, 7]), atMillis: 1)
        pipe.send(.data([8]), atMillis: 2)
        XCTAssertEqual(pipe.bytes, [1, 2, 3, 4, 5])
        XCTAssertEqual(pipe.millis(of: .close), 1)
    }

    func testResponseIsCutAtTheLimit() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("limit_data", ["bytes": 50])])
        defer { harness.stop() }
        let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
        client.get("/size/1000")
        let result = client.readAll()
        XCTAssertEqual(result.bytes.count, 50)
        XCTAssertEqual(result.errno, 0, "closed, not reset")
        XCTAssertTrue(eventually { harness.proxy.stats.toxics["limit_data"]?.closes == 1 })
    }

    func testHTTPClientSeesATruncatedResponse() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("limit_data", ["bytes": 120])])
        defer { harness.stop() }
        XCTAssertEqual(fetch(harness.proxyURL + "/size/1000").failureKind, "reset")
    }
}
