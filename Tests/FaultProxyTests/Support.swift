import CLinux
import Dispatch
@testable import FaultProxy
import Foundation
import HTTPServer
import Transport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Virtual time

/// Drives one toxic's pipeline in virtual time: no sockets, no sleeping.
struct VirtualPipe {
    let pipeline: Pipeline
    private(set) var now: UInt64 = 0
    /// Every released item with the virtual time it came out.
    private(set) var released: [(at: UInt64, emission: Emission)] = []

    init(_ specs: [ToxicSpec], flow: ToxicDirection = .downstream, seed: UInt64 = 1, connection: UInt64 = 1) throws {
        pipeline = Pipeline(flow: flow, connection: connection)
        pipeline.reconfigure(try ToxicRegistry.build(specs), seed: seed, now: 0)
        collect()
    }

    /// Feeds `event` at virtual millisecond `ms`, after running every timer due before it.
    mutating func send(_ event: ToxicEvent, atMillis ms: Double) {
        run(untilMillis: ms)
        pipeline.push(event, now: now)
        collect()
    }

    /// Runs every deadline up to `ms`, each at its own time.
    mutating func run(untilMillis ms: Double) {
        let end = UInt64(ms * 1e6)
        while let next = pipeline.nextDeadline, next <= end {
            now = max(now, next)
            pipeline.advance(now: now)
            collect()
        }
        now = max(now, end)
    }

    private mutating func collect() {
        while let item = pipeline.output.popFirst() { released.append((now, item)) }
    }

    var bytes: [UInt8] {
        released.flatMap { item -> [UInt8] in
            if case .data(let b) = item.emission { return b }
            return []
        }
    }

    /// Release times of data items, in milliseconds.
    var dataMillis: [Double] {
        released.compactMap { item in
            if case .data = item.emission { return Double(item.at) / 1e6 }
            return nil
        }
    }

    func millis(of wanted: Emission) -> Double? {
        released.first { $0.emission == wanted }.map { Double($0.at) / 1e6 }
    }
}

// MARK: - Real loopback servers

/// An HTTP server with a few test routes, and a fault proxy in front of it. Call `stop()` in a defer.
final class ProxiedServer: Sendable {
    let server: HTTPServer
    let proxy: FaultProxy

    init(seed: UInt64 = 42, toxics: [ToxicSpec] = []) throws {
        server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            let parts = request.pathWithoutQuery.split(separator: "/")
            switch parts.first {
            case "size":
                respond(HTTPResponse(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: Int(parts[1]) ?? 0)))
            case "hold": break  // never answers
            case "later":
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(parts[1]) ?? 100)) {
                    respond(.text(200, "late"))
                }
            default: respond(.text(200, "ok"))
            }
        })
        try server.start()
        proxy = FaultProxy(upstreamPort: server.port, seed: seed)
        do {
            try proxy.setToxics(toxics)
            try proxy.start()
        } catch {
            server.stop()
            throw error
        }
    }

    func stop() {
        proxy.stop()
        server.stop()
    }

    var proxyURL: String { "http://127.0.0.1:\(proxy.port)" }
    var directURL: String { "http://127.0.0.1:\(server.port)" }
}

/// One request through libcurl (Transport), waited for synchronously.
func fetch(_ url: String, timeoutMillis: Int = 5_000) -> Result<ClientResponse, TransportError> {
    let queue = DispatchQueue(label: "test.fetch")
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<ClientResponse, TransportError>?
    nonisolated(unsafe) var client: HTTPClient!
    queue.sync { client = HTTPClient(queue: queue) }
    queue.async {
        client.send(ClientRequest(method: "GET", url: url, timeoutMillis: timeoutMillis)) { r in
            result = r
            done.signal()
        }
    }
    _ = done.wait(timeout: .now() + .milliseconds(timeoutMillis + 5_000))
    queue.sync { client.close() }
    return result ?? .failure(.other(code: -2, message: "test gave up waiting"))
}

extension Result where Failure == TransportError {
    var failureKind: String? {
        if case .failure(let e) = self { return e.kind }
        return nil
    }
}

/// Seconds taken by `body`.
func elapsed(_ body: () -> Void) -> Double {
    let start = clinux_monotonic_ns()
    body()
    return Double(clinux_monotonic_ns() - start) / 1e9
}

// MARK: - Raw sockets

/// A blocking TCP client, for counting reads and seeing resets exactly as the kernel reports them.
final class RawClient {
    let fd: Int32

    init(port: Int, receiveTimeoutMillis: Int = 3_000) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var timeout = timeval(tv_sec: receiveTimeoutMillis / 1000, tv_usec: (receiveTimeoutMillis % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends all of `text`; returns 0, or the errno of a failed send (a reset may surface here first).
    @discardableResult
    func send(_ text: String) -> Int32 {
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return n < 0 ? errno : 0
    }

    @discardableResult
    func get(_ path: String) -> Int32 { send("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n") }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until EOF, an error or the receive timeout.
    func readAll() -> (bytes: [UInt8], reads: Int, errno: Int32) {
        var bytes: [UInt8] = []
        var reads = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                reads += 1
                bytes += buffer[0..<n]
            } else {
                return (bytes, reads, n == 0 ? 0 : errno)
            }
        }
    }
}

/// The body of a raw HTTP/1.1 response (after the blank line).
func body(of response: [UInt8]) -> [UInt8] {
    let marker: [UInt8] = Array("\r\n\r\n".utf8)
    guard response.count >= 4 else { return [] }
    for i in 0...(response.count - 4) where Array(response[i..<i + 4]) == marker {
        return Array(response[(i + 4)...])
    }
    return []
}

/// The descriptors a proxy can leak: sockets and epoll sets (by number). Other kinds (pipes and eventfds that
/// Foundation or Dispatch open lazily on their own threads) are left out, so another component's housekeeping
/// cannot make a leak check fail.
func socketAndEpollDescriptors() -> Set<Int> {
    let dir = "/proc/self/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
    var found = Set<Int>()
    for name in names {
        guard let fd = Int(name),
              let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\(name)") else { continue }
        if target.hasPrefix("socket:") || target == "anon_inode:[eventpoll]" { found.insert(fd) }
    }
    return found
}

/// Waits up to `seconds` for `condition`, polling briefly.
func eventually(_ seconds: Double = 2, _ condition: () -> Bool) -> Bool {
    let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
    while clinux_monotonic_ns() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

