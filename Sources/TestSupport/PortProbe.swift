import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether something has bound UDP `port` on 127.0.0.1: a test waits for this before it sends a child process
/// (SIPp as a UAS) anything, since the process returns from `start` long before it has bound its socket.
public func udpPortIsBound(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return bound != 0 && errno == EADDRINUSE
}
