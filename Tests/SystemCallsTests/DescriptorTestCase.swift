import CLinux
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A test case that closes, in `tearDown`, every descriptor it noted in `open`, so a failed assertion leaks none.
class DescriptorTestCase: XCTestCase {
    var open: [Int32] = []

    override func tearDown() {
        for fd in open { close(fd) }
        open = []
        super.tearDown()
    }

    /// A socket on 127.0.0.1 (`type`: SOCK_DGRAM or SOCK_STREAM), non-blocking, bound to a free port; noted in
    /// `open`. Returns the fd and the address it got.
    func boundLoopback(_ type: Int32) -> (fd: Int32, address: sockaddr_in) {
        let fd = socket(AF_INET, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        open.append(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                XCTAssertEqual(bind(fd, $0, length), 0)
                XCTAssertEqual(getsockname(fd, $0, &length), 0)
            }
        }
        return (fd, address)
    }
}
