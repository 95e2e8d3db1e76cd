import CLinux
import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A client of rtpengine's ng control protocol over UDP: one request at a time, each sent again with the same
/// cookie when no answer came within `timeout` (rtpengine answers a cookie it has seen from its cache, so a
/// retransmitted offer does not allocate twice), `attempts` tries in all: Kamailio's rtpengine module does the
/// same with 1 s and 5 tries by default (`rtpengine_tout_ms`, `rtpengine_retr`). Answers whose cookie is not the
/// request's (a late answer to an earlier try) are dropped.
///
/// Thread safety: none; one owner sends one request at a time.
public final class NGClient {
    public let host: String
    public let port: Int
    /// How long one try waits for its answer, in seconds.
    public var timeout: Double
    /// Tries per request, the first included.
    public var attempts: Int
    private let fd: Int32
    private let cookiePrefix: String
    private var sequence = 0

    /// A client of the rtpengine listening for ng on `host:port` (`--listen-ng`).
    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 1, attempts: Int = 5) throws {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.attempts = attempts
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard (1...65_535).contains(port), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw NGError.badAddress(host: host, port: port)
        }
        address.sin_port = UInt16(port).bigEndian
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NGError.socket(errno) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw NGError.socket(code)
        }
        self.fd = fd
        cookiePrefix = "cs\(getpid())x\(UInt32.random(in: 0...UInt32.max))"
    }

    deinit { close(fd) }

    /// Sends `body` (its `command` included) and returns the answer's dictionary, whatever its `result`.
    public func request(_ body: [String: Bencode]) throws -> [String: Bencode] {
        sequence += 1
        let message = NGMessage(cookie: "\(cookiePrefix)_\(sequence)", body: body)
        let datagram = message.encoded
        let command = body["command"]?.text ?? "?"
        for _ in 0..<max(1, attempts) {
            _ = datagram.withUnsafeBytes { SystemCall.send(fd, $0) }
            if let answer = try receive(cookie: message.cookie, command: command) { return answer }
        }
        throw NGError.timeout(command: command, attempts: max(1, attempts), seconds: Double(attempts) * timeout)
    }

    /// Sends `body` and returns the answer when its `result` is one of `expected`; anything else is `refused`
    /// with rtpengine's `error-reason`.
    public func command(_ body: [String: Bencode], expecting expected: Set<String> = ["ok"]) throws
        -> [String: Bencode] {
        let answer = try request(body)
        let command = body["command"]?.text ?? "?"
        guard let result = answer["result"]?.text else {
            throw NGError.malformed(command: command, detail: "no 'result' in the answer")
        }
        guard expected.contains(result) else {
            throw NGError.refused(command: command, result: result, reason: answer["error-reason"]?.text ?? "")
        }
        return answer
    }

    /// The answer carrying `cookie`, read until this try's time is up; nil when none came.
    private func receive(cookie: String, command: String) throws -> [String: Bencode]? {
        let deadline = clinux_monotonic_ns() + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let now = clinux_monotonic_ns()
            guard now < deadline else { return nil }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let waitMillis = Int32(max(1, (deadline - now) / 1_000_000))
            guard SystemCall.retryingInterrupts({ poll(&ready, 1, waitMillis) }) > 0 else { continue }
            let result = buffer.withUnsafeMutableBytes {
                SystemCall.receive(fd, into: $0.baseAddress!, count: $0.count)
            }
            switch result {
            case .bytes(let count):
                // A datagram that is not an ng message, or answers another cookie, is not this request's answer.
                guard let message = try? NGMessage.decode(Array(buffer[..<count])),
                      message.cookie == cookie else { continue }
                return message.body
            case .wouldBlock, .closed:
                continue
            case .error(let code):
                // ECONNREFUSED: an ICMP port unreachable from a try before (nobody listens yet); wait out the try.
                guard code == ECONNREFUSED else { throw NGError.socket(code) }
                usleep(UInt32(min(50_000, max(1, (deadline - clinux_monotonic_ns()) / 1000))))
            }
        }
    }
}
