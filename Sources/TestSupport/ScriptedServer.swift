import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on loopback that answers each accepted connection with `script` on a thread of its own: a
/// server that misbehaves on purpose (malformed bytes, a close or a reset at the wrong moment, no answer at all),
/// and sees a client's request bytes exactly as they came. Used by HTTPWire's and Transport's client tests.
public final class ScriptedServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    /// Signalled when the accept loop has ended: only then may the listener's fd number be given back, or a
    /// late `accept` would take a connection of the next test's listener that got the same number.
    private let acceptEnded = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var accepted = 0

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { accepted } }

    /// `script` gets the connection's fd; it reads requests with `readRequest` and writes with `send`. The
    /// connection is closed when it returns.
    public init(script: @escaping @Sendable (ScriptedServer, Int32) -> Void) throws {
        let fd = clinux_listen_tcp("127.0.0.1", 0, 64)
        guard fd >= 0 else { throw NSError(domain: "listen", code: Int(-fd)) }
        // Blocking accept on the server's thread.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        listener = fd
        port = Int(clinux_local_port(fd))
        let thread = Thread { [self] in
            defer { acceptEnded.signal() }
            while true {
                let conn = accept(listener, nil, nil)
                if conn < 0 { return }
                lock.withLock { accepted += 1 }
                Thread.detachNewThread { [self] in
                    script(self, conn)
                    Glibc.close(conn)
                }
            }
        }
        thread.start()
    }

    /// Reads until the end of one request head (the request sends no body); false when the peer closed.
    public func readRequest(_ fd: Int32) -> Bool { readRequestBytes(fd) != nil }

    /// One request as it came: its head and the body its Content-Length announces; nil when the peer closed first.
    public func readRequestBytes(_ fd: Int32) -> [UInt8]? {
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var end: Int?
        while true {
            if end == nil, let found = Self.headEnd(seen) { end = found }
            if let end, seen.count >= end + Self.contentLength(seen[..<end]) { return seen }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            seen += buffer[0..<n]
        }
    }

    public func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Makes the connection's close a reset (RST instead of FIN): linger on, zero seconds.
    public func resetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    public func stop() {
        // shutdown wakes the blocked accept (EINVAL); the fd is closed once the loop is out of it.
        shutdown(listener, Int32(SHUT_RDWR))
        _ = acceptEnded.wait(timeout: .now() + 10)
        Glibc.close(listener)
    }

    /// Where the head ends (just past its empty line), if it has.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i - 3] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 1] == 0x0D
            && bytes[i] == 0x0A {
            return i + 1
        }
        return nil
    }

    /// The head's Content-Length, 0 without one.
    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
