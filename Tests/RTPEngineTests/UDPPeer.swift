import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking UDP socket on 127.0.0.1 for the tests: one end of a call's media, or a fake ng server.
final class UDPPeer {
    let fd: Int32
    let port: Int

    init(receiveTimeoutMillis: Int = 2000) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        self.fd = fd
        port = Int(clinux_local_port(fd))
        var timeout = timeval(tv_sec: receiveTimeoutMillis / 1000, tv_usec: (receiveTimeoutMillis % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8], to port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// One datagram and the port it came from; nil when none came within the receive timeout.
    func receive() -> (bytes: [UInt8], from: Int)? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length)
                }
            }
        }
        guard n >= 0 else { return nil }
        return (Array(buffer[..<n]), Int(UInt16(bigEndian: source.sin_port)))
    }

    /// An RTP packet (RFC 3550 fixed header, PCMU) of `payload` bytes: version 2, sequence `sequence`, SSRC `ssrc`.
    static func rtp(sequence: UInt16, ssrc: UInt32, payload: Int = 160) -> [UInt8] {
        let timestamp = UInt32(sequence) &* 160
        var packet: [UInt8] = [0x80, 0x00, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        return packet + [UInt8](repeating: 0xFF, count: payload)
    }
}
