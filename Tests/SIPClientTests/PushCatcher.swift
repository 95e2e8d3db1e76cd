import CLinux
import Foundation
import Locking
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 listener standing in for the push gateway: keeps each connection for as many requests as the client
/// sends (a push with `Connection: close` ends its own), answers 200 to each, and records every request (head and
/// body) with the number of the connection (from 1) it came on.
final class PushCatcher: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[(connection: Int, request: String)]>([])
    private let stopping = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        listener = clinux_listen_tcp("127.0.0.1", 0, 16)
        guard listener >= 0 else { throw KamailioProcess.Failure.noFreePort }
        port = Int(clinux_local_port(listener))
        let thread = Thread { [self] in accept() }
        thread.start()
    }

    /// Every request so far, in the order they were read.
    func requests() -> [String] { seen.withLock { $0.map(\.request) } }

    /// Every request so far with the connection it came on.
    func requestsByConnection() -> [(connection: Int, request: String)] { seen.withLock { $0 } }

    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
        Glibc.close(listener)
    }

    private func accept() {
        var count = 0
        while !stopping.withLock({ $0 }) {
            let fd = clinux_accept(listener)
            if fd < 0 {
                usleep(2_000)
                continue
            }
            count += 1
            let number = count
            Thread { [self] in serve(fd, number) }.start()
        }
        done.signal()
    }

    /// Reads requests (a head and its Content-Length body each) off a non-blocking socket until the peer closes
    /// it or the catcher stops.
    private func serve(_ fd: Int32, _ number: Int) {
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.withLock({ $0 }) {
            if let (request, used) = Self.request(in: bytes) {
                bytes.removeFirst(used)
                seen.withLock { $0.append((number, request)) }
                let reply = "HTTP/1.1 200 OK\r\napns-id: 00000000-0000-0000-0000-000000000001\r\n"
                    + "Content-Length: 0\r\n\r\n"
                _ = Array(reply.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                continue
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return }
            if n > 0 { bytes += buffer[..<n] } else { usleep(2_000) }
        }
    }

    /// The first whole request in `bytes` and the bytes it takes, or nil while it is incomplete.
    private static func request(in bytes: [UInt8]) -> (String, Int)? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let length = text[..<end.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
        let headBytes = text[..<end.upperBound].utf8.count
        guard bytes.count >= headBytes + length else { return nil }
        return (String(decoding: bytes[..<(headBytes + length)], as: UTF8.self), headBytes + length)
    }
}
