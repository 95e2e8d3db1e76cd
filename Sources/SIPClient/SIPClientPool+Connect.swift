import CLinux
import CSSL
import SIP
import StreamIO
#if canImport(Glibc)
import Glibc
#endif

extension SIPClientPool {
    /// A new connection to the proxy (non-blocking, no Nagle) and, for TLS, a client session on it checking that
    /// the proxy's certificate names its host; the handshake runs with the first writes and reads.
    func connectStream(_ transport: SIPTransportKind, resuming: TLSSavedSession?)
        -> Result<(fd: Int32, tls: OpaquePointer?), SIPClientError> {
        var session: OpaquePointer?
        if transport.isSecure, tls == nil {
            return .failure(.tlsUnavailable("the pool has no client TLS context (a CA to trust)"))
        }
        let fd = clinux_connect_tcp(proxy.host, Int32(proxy.port))
        guard fd >= 0 else { return .failure(.socket(call: "connect", errno: -fd)) }
        _ = clinux_set_nodelay(fd)
        if transport.isSecure {
            session = tls?.session(fd: fd, host: proxy.host, resuming: resuming)
            guard session != nil else {
                Glibc.close(fd)
                return .failure(.tlsUnavailable("OpenSSL could not make a session"))
            }
        }
        return .success((fd, session))
    }

    /// Keeps a finished TLS connection's session for the device's next connection (`tls.keepsSessions`).
    func keepTLSSession(_ socket: SIPSocket, of agent: SIPUserAgent) {
        guard tls?.keepsSessions == true, !socket.handshaking, let session = socket.stream.tls,
              let saved = TLSSavedSession(of: session) else { return }
        savedTLS[agent.account.user] = saved
    }
}
