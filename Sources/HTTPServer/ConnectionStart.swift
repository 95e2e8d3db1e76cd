import CLinux
import CSSL
#if canImport(Glibc)
import Glibc
#endif

/// A connection whose protocol is not known yet: it finishes the TLS handshake (when the server has TLS), then
/// picks HTTP/2 or HTTP/1.1 and hands the socket, with whatever bytes it read, to that protocol's connection.
///
/// The rule, in order: ALPN `h2` → HTTP/2; ALPN `http/1.1` → HTTP/1.1; otherwise (h2c, or TLS without ALPN, as
/// aioapns connects) the first bytes decide: the HTTP/2 connection preface → HTTP/2, anything else → HTTP/1.1.
/// Thread rule: loop thread only, like every `LoopConnection`.
final class ConnectionStart: LoopConnection {
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// A client that has not finished its handshake and first bytes by then is dropped.
    static let startTimeoutNanoseconds: UInt64 = 10_000_000_000

    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    var isClosed = false
    var isDirty = false
    private var handshaking: Bool
    private var sniffed: [UInt8] = []
    private let started: UInt64
    private var interest: UInt32 = CLINUX_EPOLLIN

    init(fd: Int32, id: UInt64, loop: EventLoop, tls: OpaquePointer?) {
        self.fd = fd
        self.id = id
        self.loop = loop
        self.stream = ByteStream(fd: fd, tls: tls)
        self.handshaking = tls != nil
        self.started = loop.now
    }

    func handleEvents(_ events: UInt32) {
        if events & (CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 && events & CLINUX_EPOLLIN == 0 {
            loop.closeConnection(self)
            return
        }
        if handshaking {
            guard let tls = stream.tls else { return }
            switch cssl_handshake(tls) {
            case 1:
                handshaking = false
                loop.counters.tlsHandshakes.add(1, ordering: .relaxed)
                var name = [CChar](repeating: 0, count: 32)
                let length = cssl_alpn_selected(tls, &name, Int32(name.count))
                let alpn = String(decoding: name.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if alpn == "h2" { become(http2: true); return }
                if alpn == "http/1.1" { become(http2: false); return }
            case 0:
                return
            default:
                loop.counters.tlsHandshakeFailures.add(1, ordering: .relaxed)
                loop.closeConnection(self)
                return
            }
        }
        sniff()
    }

    /// Reads until the first bytes decide the protocol.
    private func sniff() {
        let scratch = loop.readScratch
        while true {
            let count = stream.read(scratch.baseAddress!, scratch.count)
            if count > 0 {
                sniffed.append(contentsOf: UnsafeRawBufferPointer(start: scratch.baseAddress, count: count))
                let n = min(sniffed.count, Self.preface.count)
                if sniffed[0..<n].elementsEqual(Self.preface[0..<n]) {
                    if n == Self.preface.count { become(http2: true); return }
                } else {
                    become(http2: false)
                    return
                }
            } else if count == 0 {
                loop.closeConnection(self)
                return
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else {
                loop.closeConnection(self)
                return
            }
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
