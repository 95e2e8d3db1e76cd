import Bytes
import SystemCalls
import CLinux
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// UDP through the layer: a datagram arrives whole with its sender, an empty one is `bytes(0)` (a datagram socket
/// has no end of stream), and an empty socket would block.
final class DatagramCallTests: DescriptorTestCase {
    private func boundUDP() -> (fd: Int32, address: sockaddr_in) {
        boundLoopback(Int32(SOCK_DGRAM.rawValue))
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
