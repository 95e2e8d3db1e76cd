@testable import SIPClient
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The pool's tables by agent id and descriptor (`SlotTable`) read as the dictionaries they replaced, and its UDP
/// senders (`DatagramSources`) answer where each request came from.
final class SlotTableTests: XCTestCase {
    func testASlotTableCountsKeysInOrderAndForgetsRemovedOnes() {
        var table = SlotTable<String>()
        XCTAssertTrue(table.isEmpty)
        table[3] = "c"
        table[1] = "a"
        table[Int32(7)] = "g"
        table[3] = "C"
        XCTAssertEqual(table.count, 3, "a value set again is one entry")
        XCTAssertEqual(table.keys, [1, 3, 7])
        XCTAssertEqual(table.values, ["a", "C", "g"])
        XCTAssertEqual(table.removeValue(forKey: 3), "C")
        XCTAssertNil(table.removeValue(forKey: 3))
        table[Int32(7)] = nil
        table[100] = nil
        XCTAssertNil(table[-1])
        XCTAssertNil(table[100])
        XCTAssertEqual(table.count, 1)
        XCTAssertEqual(table.keys, [1])
    }

    func testAnswersGoToTheirSenderAndTheProxysOwnOrAForgottenOnesToTheProxy() {
        func address(_ port: UInt16) -> sockaddr_in {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            return a
        }
        var sources = DatagramSources(proxy: address(5060))
        let proxy = sources.remember(address(5060))
        let other = sources.remember(address(5070))
        XCTAssertNotEqual(proxy, other)
        XCTAssertEqual(sources.address(proxy).sin_port, UInt16(5060).bigEndian)
        XCTAssertEqual(sources.address(other).sin_port, UInt16(5070).bigEndian)
        XCTAssertEqual(sources.address(12_345).sin_port, UInt16(5060).bigEndian, "an unknown handle: the proxy")
    }
}
