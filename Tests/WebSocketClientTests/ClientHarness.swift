import StreamIO
import Determinism
import Dispatch
import EventPolling
import Foundation
import Locking
import WebSocket
import WebSocketClient
import XCTest

/// A pool on its own event thread, recording every event, for tests. Waits are bounded polls (never a timed
/// assertion): a hung peer fails the test after `seconds`, a working one returns as soon as the event is in.
final class ClientHarness: @unchecked Sendable {
    let thread = EventThread(queue: DispatchQueue(label: "ws.test"), name: "ws-test")
    private(set) var pool: WebSocketClientPool!
    private let log = Mutex<[(UInt64, ClientConnection.Event)]>([])

    init(tls: ClientTLS? = nil) {
        thread.queue.sync {
            pool = WebSocketClientPool(thread: thread, tls: tls) { [unowned self] id, event in
                log.withLock { $0.append((id, event)) }
            }
        }
    }

    func shutDown() {
        thread.queue.sync { pool.shutDown() }
        thread.stop()
    }

    func open(_ url: String, headers: [(name: String, value: String)] = [], seed: UInt64 = 1) throws -> UInt64 {
        let parsed = try WebSocketURL(parsing: url)
        return try thread.queue.sync { try pool.open(parsed, headers: headers, random: SeededRandom(seed: seed)).get() }
    }

    @discardableResult
    func onQueue<R>(_ body: (WebSocketClientPool) -> R) -> R { thread.queue.sync { body(pool) } }

    func events(_ id: UInt64) -> [ClientConnection.Event] {
        log.withLock { $0.filter { $0.0 == id }.map(\.1) }
    }

    func texts(_ id: UInt64) -> [String] {
        events(id).compactMap { if case .message(.text(let t)) = $0 { return t } else { return nil } }
    }

    func report(_ id: UInt64) -> CloseReport? {
        events(id).lazy.compactMap { if case .closed(let r) = $0 { return r } else { return nil } }.first
    }

    /// Polls until `predicate` holds or `seconds` pass; returns whether it held.
    @discardableResult
    func wait(seconds: Double = 10, _ predicate: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate() { return true }
            usleep(2_000)
        }
        return predicate()
    }

    func waitOpen(_ id: UInt64, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(wait { events(id).contains(.opened) || report(id) != nil }, "socket \(id) never opened",
                      file: file, line: line)
        XCTAssertTrue(events(id).contains(.opened), "socket \(id) closed: \(String(describing: report(id)))",
                      file: file, line: line)
    }

    /// The JSON objects received as text on `id`.
    func json(_ id: UInt64) -> [[String: Any]] {
        texts(id).compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
}

/// A blocking TCP connection to `127.0.0.1:port`, or -1. The caller closes it.
func connectLoopback(_ port: Int) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { close(fd); return -1 }
    return fd
}

func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
}

/// Reads until `enough` says so or the peer closes.
func receive(_ fd: Int32, into all: inout [UInt8], until enough: ([UInt8]) -> Bool = { _ in false }) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !enough(all) {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        all.append(contentsOf: buffer[0..<n])
    }
}

/// Sends `text` on a fresh connection and reads until the server closes it.
func exchange(port: Int, _ text: String) -> String {
    let fd = connectLoopback(port)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    sendAll(fd, Array(text.utf8))
    var all: [UInt8] = []
    receive(fd, into: &all)
    return String(decoding: all, as: UTF8.self)
}

/// One blocking HTTP/1.1 request with `Connection: close`: enough to drive the target's HTTP API in a test.
func httpRequest(port: Int, _ method: String, _ path: String, _ body: String = "") -> (Int, [String: Any]) {
    let text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    let response = exchange(port: port, text)
    let status = Int(response.split(separator: " ").dropFirst().first ?? "") ?? 0
    let bodyText = response.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    let json = (try? JSONSerialization.jsonObject(with: Data(bodyText.utf8))) as? [String: Any] ?? [:]
    return (status, json)
}

/// Registers device `id` with the handle `number` on the reference target at `port`.
func registerDevice(_ port: Int, _ id: String, _ number: String, file: StaticString = #filePath, line: UInt = #line) {
    let body = "{\"id\":\"\(id)\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"\(number)\","
        + "\"displayName\":\"\(id)\"},\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
    XCTAssertEqual(httpRequest(port: port, "POST", "/v1/devices", body).0, 201, file: file, line: line)
}
