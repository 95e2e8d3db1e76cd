import Bytes
import CLinux
import SIP
import StreamIO
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One agent's socket: a UDP socket bound to an ephemeral loopback port, or a TCP connection to the proxy (in
/// the clear, or under TLS: `stream` reads and writes either) with its stream parser and unsent bytes, and for
/// SIP over WebSocket its `webSocket` link (which frames what the agent sends and reads what comes). Owned by
/// `SIPClientPool` on its event thread.
final class SIPSocket {
    let stream: SocketStream
    var fd: Int32 { stream.fd }
    let agent: Int
    let transport: SIPTransportKind
    var parser = SIPStreamParser()
    /// Stream bytes the kernel (or OpenSSL, mid-handshake) has not taken yet: a connect in progress, a full
    /// send buffer.
    var pending = ByteQueue()
    var wantsWrite = false
    /// Under TLS until the handshake is over: bytes to send wait in `pending`, and the socket is polled only in
    /// the direction OpenSSL waits on (polling for writes while it waits to read would spin).
    var handshaking: Bool
    /// Whether the TCP connect has completed (noted once, for the wake-up path's `wake.connect`); until then the
    /// socket is also polled for writes, which is how a non-blocking connect says it is done.
    var connected = false
    /// SIP over WebSocket: the Upgrade and the framing (nil on UDP, TCP and TLS).
    var webSocket: SIPWebSocketLink?

    init(fd: Int32, agent: Int, transport: SIPTransportKind, tls: OpaquePointer? = nil,
         webSocket: SIPWebSocketLink? = nil) {
        stream = SocketStream(fd: fd, tls: tls)
        handshaking = tls != nil
        self.agent = agent
        self.transport = transport
        self.webSocket = webSocket
        connected = !transport.isStream || Self.isConnected(fd)  // a UDP socket has nothing to wait for
        if webSocket != nil { moveFramed() }
    }

    /// Whether a non-blocking connect on `fd` has completed (it has a peer).
    static func isConnected(_ fd: Int32) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    /// Sends one SIP message on a connection: in a WebSocket message over WS and WSS, as it is over TCP and TLS.
    /// Returns whether bytes are left (wait for EPOLLOUT).
    func send(_ message: [UInt8]) -> Bool {
        guard webSocket != nil else { return write(message) }
        webSocket?.send(message)
        return moveFramed()
    }

    /// Moves what the WebSocket link has to send (the Upgrade, frames, pongs) into `pending` and writes it;
    /// returns whether bytes are left.
    @discardableResult
    func moveFramed() -> Bool {
        guard let bytes = webSocket?.takeOutbound(), !bytes.isEmpty else { return !pending.isEmpty }
        return write(bytes)
    }

    /// A non-blocking UDP socket bound to `host`:0.
    static func udp(host: String) -> Result<Int32, SIPClientError> {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.socket(call: "socket", errno: errno)) }
        guard var address = ipv4(host, port: 0) else {
            close(fd)
            return .failure(.badProxyAddress(host))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            return .failure(.socket(call: "bind", errno: code))
        }
        return .success(fd)
    }

    static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    /// Sends one datagram to `address`; false when the kernel refused it (counted by the pool as a send error).
    func sendDatagram(_ bytes: [UInt8], to address: sockaddr_in) -> Bool {
        bytes.withUnsafeBytes { SystemCall.sendDatagram(fd, $0, to: address) } == .bytes(bytes.count)
    }

    /// Queues stream bytes and writes what the kernel takes; returns whether bytes are left (wait for EPOLLOUT).
    func write(_ bytes: [UInt8]) -> Bool {
        pending.append(bytes)
        return handshaking || flush()
    }

    /// Writes queued bytes; returns whether some are left. A failed write leaves them: the read that follows
    /// meets the broken stream and the pool reconnects. An emptied queue keeps no buffer.
    func flush() -> Bool {
        _ = pending.drain(keepingCapacityUpTo: 0, compactingAt: 64 * 1024) { stream.write($0) }
        return !pending.isEmpty
    }
}
