import Bytes
import CLinux
import CSSL
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A connection whose protocol is not known yet: it finds out what the client speaks, finishes a TLS handshake
/// when there is one, then hands the socket, with whatever bytes it read, to HTTP/2 or HTTP/1.1.
///
/// First (only when the server answers CONNECT, or has TLS on a cleartext port) the first bytes are peeked at,
/// not read: a TLS record (0x16) starts TLS, `CONNECT ` reads the proxy head (see `ConnectHead`) and, once
/// answered 200, starts TLS inside the tunnel; anything else goes on as before (TLS on a TLS listener, the
/// cleartext sniff otherwise). Peeking leaves a ClientHello in the socket for OpenSSL to read.
/// After TLS: ALPN `h2` → HTTP/2; ALPN `http/1.1` → HTTP/1.1; otherwise (h2c, or TLS without ALPN, as aioapns
/// connects) the first bytes decide: the HTTP/2 connection preface → HTTP/2, anything else → HTTP/1.1.
/// Thread rule: loop thread only, like every `LoopConnection`.
final class ConnectionStart: LoopConnection {
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// A client that has not finished its handshake and first bytes by then is dropped.
    static let startTimeoutNanoseconds: UInt64 = 10_000_000_000

    private enum Phase {
        /// Peeking at the first bytes.
        case first
        /// Reading a CONNECT head.
        case connectHead
        case handshaking
        /// Reading until the HTTP/2 preface or its absence decides.
        case preface
    }

    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    var isClosed = false
    var isDirty = false
    private var phase: Phase
    private var sniffed: [UInt8] = []
    private let started: UInt64

    init(fd: Int32, id: UInt64, loop: EventLoop) {
        self.fd = fd
        self.id = id
        self.loop = loop
        self.stream = ByteStream(fd: fd)
        self.started = loop.now
        let limits = loop.limits
        if limits.connect != nil || (loop.tls != nil && !limits.listenerIsTLS) {
            phase = .first
        } else if limits.listenerIsTLS {
            if let tls = loop.tls, let session = cssl_new(tls.context, fd) {
                stream.startTLS(session)
                phase = .handshaking
            } else {
                // `classify` tries again and closes the connection when it cannot.
                phase = .first
            }
        } else {
            phase = .preface
        }
    }

    func handleEvents(_ events: UInt32) {
        if events & (CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 && events & CLINUX_EPOLLIN == 0 {
            loop.closeConnection(self)
            return
        }
        switch phase {
        case .first: classify()
        case .connectHead: readConnectHead()
        case .handshaking: handshake()
        case .preface: sniff()
        }
    }

    // MARK: - First bytes

    private func classify() {
        let scratch = loop.readScratch
        let peeked = SystemCall.receive(fd, into: scratch.baseAddress!, count: ConnectHead.method.count,
                                        flags: Int32(MSG_PEEK))
        guard case .bytes(let count) = peeked else {
            if peeked != .wouldBlock { loop.closeConnection(self) }
            return
        }
        let first = UnsafeRawBufferPointer(start: scratch.baseAddress, count: count)
        if first[0] == 0x16 && loop.tls != nil {
            beginTLS()
        } else if loop.limits.connect != nil && ConnectHead.method.starts(with: first) {
            phase = .connectHead
            readConnectHead()
        } else if loop.limits.listenerIsTLS {
            // Not TLS and not CONNECT: the handshake fails and is counted, as on any TLS port.
            beginTLS()
        } else {
            phase = .preface
            sniff()
        }
    }

    private func beginTLS() {
        guard let tls = loop.tls, let session = cssl_new(tls.context, fd) else {
            loop.closeConnection(self)
            return
        }
        stream.startTLS(session)
        phase = .handshaking
        handshake()
    }

    // MARK: - CONNECT

    /// Reads the CONNECT head up to its blank line and not a byte further: bytes are peeked, and only those up
    /// to the head's end are taken, so a ClientHello sent early stays for OpenSSL. Bytes without the end are
    /// taken at once (they belong to the head), so level-triggered epoll never spins on them.
    private func readConnectHead() {
        let scratch = loop.readScratch
        while true {
            let room = ConnectHead.maxBytes - sniffed.count
            if room <= 0 {
                refuse(431, target: nil, reason: "the CONNECT head is larger than \(ConnectHead.maxBytes) bytes")
                return
            }
            let peek = SystemCall.receive(fd, into: scratch.baseAddress!, count: min(room, scratch.count),
                                          flags: Int32(MSG_PEEK))
            guard case .bytes(let peeked) = peek else {
                if peek != .wouldBlock { loop.closeConnection(self) }
                return
            }
            let tail = Array(sniffed.suffix(3))
            let window = tail + UnsafeRawBufferPointer(start: scratch.baseAddress, count: peeked)
            let end = window.withUnsafeBufferPointer { ConnectHead.headEnd($0) }
            let take = end.map { max(0, $0 - tail.count) } ?? peeked
            if take > 0 {
                guard SystemCall.receive(fd, into: scratch.baseAddress!, count: take) == .bytes(take) else {
                    loop.closeConnection(self)
                    return
                }
            }
            sniffed.append(contentsOf: UnsafeRawBufferPointer(start: scratch.baseAddress, count: take))
            if !sniffed.prefix(ConnectHead.method.count).elementsEqual(
                ConnectHead.method.prefix(min(sniffed.count, ConnectHead.method.count))) {
                notConnect()
                return
            }
            if end != nil {
                decideConnect()
                return
            }
        }
    }

    /// The first bytes looked like `CONNECT ` but are some other request.
    private func notConnect() {
        if loop.limits.listenerIsTLS {
            loop.counters.tlsHandshakeFailures.add(1, ordering: .relaxed)
            loop.closeConnection(self)
        } else {
            // It does not start with the HTTP/2 preface ('P'), so it is HTTP/1.1.
            become(http2: false)
        }
    }

    private func decideConnect() {
        guard let policy = loop.limits.connect else { return }
        let head = sniffed
        sniffed = []
        switch ConnectHead.decide(head, policy: policy) {
        case .tunnel(let target):
            guard writeAll(ConnectHead.established) else {
                loop.closeConnection(self)
                return
            }
            loop.counters.tunnelsOpened.add(1, ordering: .relaxed)
            loop.handler.connectionEvent(.tunnelOpened(target: target))
            stream.tunnelTarget = target
            beginTLS()
        case .refuse(let status, let target, let reason):
            refuse(status, target: target, reason: reason)
        }
    }

    private func refuse(_ status: Int, target: String?, reason: String) {
        _ = writeAll(ConnectHead.refusal(status, reason: reason))
        loop.counters.tunnelsRefused.add(1, ordering: .relaxed)
        loop.handler.connectionEvent(.tunnelRefused(status: status, target: target, reason: reason))
        loop.closeConnection(self)
    }

    /// Sends a proxy answer in one go: a few dozen bytes on a socket that has sent nothing yet.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { all in SystemCall.writeAll(all) { SystemCall.send(fd, $0) } } == nil
    }

    // MARK: - TLS

    private func handshake() {
        guard let tls = stream.tls else { return }
        switch cssl_handshake(tls) {
        case 1:
            loop.counters.tlsHandshakes.add(1, ordering: .relaxed)
            if let certificate = ClientCertificate(session: tls) {
                stream.clientCertificate = certificate
                loop.counters.clientCertificates.add(1, ordering: .relaxed)
            }
            var name = [CChar](repeating: 0, count: 32)
            let length = cssl_alpn_selected(tls, &name, Int32(name.count))
            let alpn = String(decoding: name.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if alpn == "h2" { become(http2: true); return }
            if alpn == "http/1.1" { become(http2: false); return }
            phase = .preface
            sniff()
        case 0:
            return
        default:
            loop.counters.tlsHandshakeFailures.add(1, ordering: .relaxed)
            let verified = cssl_verify_result(tls)
            if verified != 0 {
                loop.counters.clientCertificatesRefused.add(1, ordering: .relaxed)
                let detail = String(cString: cssl_verify_error_string(verified))
                loop.handler.connectionEvent(.clientCertificateRefused(
                    expired: cssl_verify_is_expired(verified) == 1, detail: detail))
            }
            loop.closeConnection(self)
        }
    }

    // MARK: - HTTP/2 preface

    /// Reads until the first bytes decide the protocol.
    private func sniff() {
        var decided: Bool?
        let end = loop.readChunks(from: stream, limit: .max) { chunk in
            sniffed.append(contentsOf: chunk)
            let n = min(sniffed.count, Self.preface.count)
            if sniffed[0..<n].elementsEqual(Self.preface[0..<n]) {
                if n == Self.preface.count { decided = true }
            } else {
                decided = false
            }
            return decided == nil
        }
        if let http2 = decided {
            become(http2: http2)
        } else if end != .wouldBlock {
            loop.closeConnection(self)
        }
    }

    private func become(http2: Bool) {
        let initial = sniffed
        sniffed = []
        if http2 && loop.limits.http2 {
            let connection = HTTP2Connection(fd: fd, id: id, loop: loop, stream: stream)
            loop.counters.http2Connections.add(1, ordering: .relaxed)
            loop.replace(self, with: connection)
            connection.start(initial: initial)
        } else {
            let connection = HTTP1Connection(fd: fd, id: id, loop: loop, stream: stream)
            loop.replace(self, with: connection)
            connection.start(initial: initial)
        }
    }

    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool { false }

    func makeProgress() {}

    func checkTimers() {
        if loop.now &- started >= Self.startTimeoutNanoseconds { loop.closeConnection(self) }
    }
}
