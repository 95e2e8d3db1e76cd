import Bytes
import SystemCalls
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// UDP through the layer: a datagram arrives whole with its sender, an empty one is `bytes(0)` (a datagram socket
/// has no end of stream), and an empty socket would block.
final class DatagramCallTests: XCTestCase {
    private var open: [Int32] = []

    override func tearDown() {
        for fd in open { close(fd) }
        open = []
    }

    /// A non-blocking UDP socket bound to 127.0.0.1 on a free port, and its address.
    private func boundUDP() -> (fd: Int32, address: sockaddr_in) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
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

    private func receive(_ fd: Int32, _ buffer: inout [UInt8], from source: inout sockaddr_in) -> IOResult {
        buffer.withUnsafeMutableBytes {
            SystemCall.receiveDatagram(fd, into: $0.baseAddress!, count: $0.count, from: &source)
        }
    }

    func testADatagramArrivesWholeWithItsSender() {
        let sender = boundUDP()
        let receiver = boundUDP()
        let sent = [UInt8]("INVITE".utf8).withUnsafeBytes {
            SystemCall.sendDatagram(sender.fd, $0, to: receiver.address)
        }
        XCTAssertEqual(sent, .bytes(6))
        var buffer = [UInt8](repeating: 0, count: 64)
        var source = sockaddr_in()
        XCTAssertEqual(receive(receiver.fd, &buffer, from: &source), .bytes(6))
        XCTAssertEqual(String(decoding: buffer.prefix(6), as: UTF8.self), "INVITE")
        XCTAssertEqual(source.sin_port, sender.address.sin_port)
    }

    func testAnEmptyDatagramIsZeroBytesNotTheEndOfAStream() {
        let sender = boundUDP()
        let receiver = boundUDP()
        XCTAssertEqual([UInt8]().withUnsafeBytes { SystemCall.sendDatagram(sender.fd, $0, to: receiver.address) },
                       .bytes(0))
        var buffer = [UInt8](repeating: 0, count: 64)
        var source = sockaddr_in()
        XCTAssertEqual(receive(receiver.fd, &buffer, from: &source), .bytes(0))
    }

    func testAnEmptyUDPSocketWouldBlock() {
        let receiver = boundUDP()
        var buffer = [UInt8](repeating: 0, count: 64)
        var source = sockaddr_in()
        XCTAssertEqual(receive(receiver.fd, &buffer, from: &source), .wouldBlock)
    }
}
