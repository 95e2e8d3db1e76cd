@testable import FaultProxy
import TestSupport
import XCTest

final class SlowCloseToxicTests: XCTestCase {
    func testEndIsHeldButDataIsNot() throws {
        var pipe = try VirtualPipe([ToxicSpec("slow_close", ["delay": 250])])
        pipe.send(.data([1, 2]), atMillis: 5)
        pipe.send(.end, atMillis: 10)
        pipe.run(untilMillis: 1_000)
        XCTAssertEqual(pipe.dataMillis, [5])
        XCTAssertEqual(pipe.millis(of: .end), 260)
    }

    func testClientSeesTheCloseLate() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("slow_close", ["delay": 150])])
        defer { harness.stop() }
        let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
        client.get("/")
        var result: (bytes: [UInt8], reads: Int, errno: Int32) = ([], 0, 0)
        let seconds = elapsed { result = client.readAll() }
        XCTAssertEqual(body(of: result.bytes), Array("ok".utf8))
        XCTAssertEqual(result.errno, 0, "a clean EOF")
        XCTAssertGreaterThanOrEqual(seconds, 0.14, "the close is held back (exact times: the virtual test)")
    }
}
