import CLinux
import Determinism
import Dispatch
@testable import FaultProxy
import Foundation
import HTTPServer
import TestSupport
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

    /// `clock`: the proxy's time (toxic delays, ramps); a `ManualClock` makes them move only when the test moves it.
    init(seed: UInt64 = 42, toxics: [ToxicSpec] = [], clock: any Clock = MonotonicClock()) throws {
        server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            let parts = request.pathWithoutQuery.split(separator: "/")
            switch parts.first {
            case "size":
                respond(HTTPResponse(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: Int(parts[1]) ?? 0)))
            case "hold": break  // never answers
            default: respond(.text(200, "ok"))
            }
        })
        try server.start()
        proxy = FaultProxy(upstreamPort: server.port, seed: seed, clock: clock)
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

extension LoopbackSocket {
    /// Sends a GET for `path` that asks the server to close; returns 0 or the errno of the failed send.
    @discardableResult
    func get(_ path: String) -> Int32 {
        sendReportingErrno("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
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
