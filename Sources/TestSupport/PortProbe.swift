import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Whether something has bound UDP `port` on 127.0.0.1: a test waits for this before it sends a child process
/// (SIPp as a UAS) anything, since the process returns from `start` long before it has bound its socket.
public func udpPortIsBound(_ port: Int) -> Bool {
    clinux_probe_udp_bind("127.0.0.1", Int32(port)) == -EADDRINUSE
}
