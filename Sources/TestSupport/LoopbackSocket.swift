import Bytes
import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client on 127.0.0.1 over a POSIX socket, so socket tests depend on nothing but the kernel and
/// see sends, reads, EOFs and resets exactly as the kernel reports them. Every read has a timeout, so a server
/// bug fails a test instead of hanging it.
///
/// `@unchecked Sendable`: an instance may be handed to another thread, but only one thread uses it at a time.
public final class LoopbackSocket: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case connect(Int32)
        case send(Int32)

        public var description: String {
            switch self {
            case .connect(let code): return "connect to 127.0.0.1 failed: errno \(code)"
            case .send(let code): return "send failed: errno \(code)"
            }
        }
    }

    /// What one read returned.
    public enum Received: Equatable {
        case data([UInt8])
        /// The peer closed its side (EOF).
        case end
        /// The read failed with this errno: EAGAIN is the receive timeout, ECONNRESET a reset.
        case failed(Int32)
    }

    public let fd: Int32
    private var isClosed = false

    /// Connects to `port`; reads give up after `receiveTimeoutMillis`. `sendTimeoutMillis` bounds a send into a
    /// full window; `noDelay` turns Nagle off, so small requests leave at once.
    public init(port: Int, receiveTimeoutMillis: Int = 5_000, sendTimeoutMillis: Int? = nil,
                noDelay: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure.connect(code)
        }
        self.fd = fd
        setTimeout(SO_RCVTIMEO, millis: receiveTimeoutMillis)
        if let sendTimeoutMillis { setTimeout(SO_SNDTIMEO, millis: sendTimeoutMillis) }
        if noDelay {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    deinit { close() }

    /// Changes how long a read waits for data.
    public func setReceiveTimeout(millis: Int) { setTimeout(SO_RCVTIMEO, millis: millis) }

    private func setTimeout(_ option: Int32, millis: Int) {
        var timeout = timeval(tv_sec: millis / 1000, tv_usec: (millis % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    // MARK: - Sending

    /// Sends all of `bytes` (interrupted sends are retried by `SystemCall`); throws the errno of a failed one
    /// (EAGAIN when the send timeout passed).
    public func send(_ bytes: [UInt8]) throws {
        switch bytes.withUnsafeBytes({ all in SystemCall.writeAll(all) { SystemCall.send(fd, $0) } }) {
        case nil, .bytes?: return
        case .wouldBlock?: throw Failure.send(EAGAIN)
        case .closed?: throw Failure.send(EPIPE)
        case .error(let code)?: throw Failure.send(code)
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `text` and returns 0, or the errno of the failed send (a reset may surface here before any read).
    @discardableResult
    public func sendReportingErrno(_ text: String) -> Int32 {
        do {
            try send(text)
            return 0
        } catch Failure.send(let code) {
            return code
        } catch {
            return EIO
        }
    }

    // MARK: - Receiving

    /// One read of up to 64 KiB (interrupted reads are retried by `SystemCall`); EAGAIN when the receive
    /// timeout passed.
    public func receive() -> Received {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        switch chunk.withUnsafeMutableBytes({ SystemCall.receive(fd, into: $0.baseAddress!, count: $0.count) }) {
        case .bytes(let count): return .data(Array(chunk[0..<count]))
        case .closed: return .end
        case .wouldBlock: return .failed(EAGAIN)
        case .error(let code): return .failed(code)
        }
    }

    /// Reads until EOF, an error or the receive timeout: the bytes, how many reads delivered them, and 0 for a
    /// clean EOF or the errno that ended it.
    public func readAll() -> (bytes: [UInt8], reads: Int, errno: Int32) {
        var bytes: [UInt8] = []
        var reads = 0
        while true {
            switch receive() {
            case .data(let chunk):
                reads += 1
                bytes += chunk
            case .end: return (bytes, reads, 0)
            case .failed(let code): return (bytes, reads, code)
            }
        }
    }

    /// Reads until EOF, an error, `until` holds, or `timeoutMillis` pass without data.
    public func read(timeoutMillis: Int, until: (([UInt8]) -> Bool)? = nil) -> [UInt8] {
        setReceiveTimeout(millis: timeoutMillis)
        var all: [UInt8] = []
        while case .data(let chunk) = receive() {
            all += chunk
            if let until, until(all) { break }
        }
        return all
    }

    // MARK: - Closing

    /// Half-closes: the peer sees EOF, this side can still read.
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Makes `close()` send RST instead of FIN (SO_LINGER 0), so the peer sees an error at once.
    public func resetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Closes with RST.
    public func reset() {
        resetOnClose()
        close()
    }

    public func close() {
        if !isClosed {
            isClosed = true
            Glibc.close(fd)
        }
    }
}
