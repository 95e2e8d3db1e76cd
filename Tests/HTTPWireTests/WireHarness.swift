import StreamIO
import CLinux
import Dispatch
import EventPolling
import Foundation
@testable import HTTPWire
import Locking
import WebSocketClient
#if canImport(Glibc)
import Glibc
#endif

/// A `WireClient` on its own event thread, driven from a test: `get` blocks until the completion ran.
final class WireHarness: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.wire")
    private var thread: EventThread!
    private(set) var client: WireClient!

    init(configuration: WireClient.Configuration = .init(), tls: ClientTLS? = nil) {
        queue.sync {
            thread = EventThread(queue: queue, name: "test.wire")
            client = WireClient(thread: thread, configuration: configuration, tls: tls)
        }
    }

    /// Sends `method url` and waits (up to 20 s, a hang is a failure) for its result.
    func request(_ url: String, method: String = "GET", timeoutMillis: Int = 5_000)
        -> Result<WireResponse, WireError> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<WireResponse, WireError>>(.failure(.clientClosed))
        let request: WireRequest
        do {
            request = try WireRequest(method: method, url: url, timeoutMillis: timeoutMillis)
        } catch {
            return .failure(error)
        }
        queue.sync {
            client.send(request) { outcome in
                result.withLock { $0 = outcome }
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + 20) == .success else { return .failure(.responseTimeout(millis: -1)) }
        return result.withLock { $0 }
    }

    var stats: WireClient.Stats { queue.sync { client.stats } }

    func shutDown() {
        queue.sync {
            client.close()
            thread.stop()
        }
        thread.waitUntilStopped()
    }
}

/// A TCP listener on loopback that answers each accepted connection with `script` on a thread of its own: a
/// server that misbehaves on purpose (malformed bytes, a close at the wrong moment, no answer at all).
final class ScriptedServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Mutex<[Int32]>([])
    /// Signalled when the accept loop has ended: only then may the listener's fd number be given back, or a
    /// late `accept` would take a connection of the next test's listener that got the same number.
    private let acceptEnded = DispatchSemaphore(value: 0)
    let connections = Mutex(0)

    /// `script` gets the connection's fd; it reads requests with `readRequest` and writes with `send`. The
    /// connection is closed when it returns.
    init(script: @escaping @Sendable (ScriptedServer, Int32) -> Void) throws {
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
                accepted.withLock { $0.append(conn) }
                connections.withLock { $0 += 1 }
                Thread.detachNewThread { [self] in
                    script(self, conn)
                    Glibc.close(conn)
                }
            }
        }
        thread.start()
    }

    /// Reads until the end of one request head (these tests send no bodies); false when the peer closed.
    func readRequest(_ fd: Int32) -> Bool {
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !seen.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return false }
            seen += buffer[0..<n]
        }
        return true
    }

    func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func stop() {
        // shutdown wakes the blocked accept (EINVAL); the fd is closed once the loop is out of it.
        shutdown(listener, Int32(SHUT_RDWR))
        _ = acceptEnded.wait(timeout: .now() + 10)
        Glibc.close(listener)
    }
}
