import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately hostile call server on a real loopback socket, for proving that no target fault crashes
/// callstorm or stalls a worker. Registration works (so devices exist); every other request gets the next
/// misbehaviour of a fixed rotation, and now and then the server goes away for a moment (connections refused)
/// and comes back on the same port. Every answer closes its connection, so each request connects anew.
///
/// Blocking sockets, a thread per connection; `stop()` closes the listener and shuts every open connection.
final class HostileServer: @unchecked Sendable {
    enum Behaviour: String, CaseIterable {
        case reset             // RST right after reading the request (SO_LINGER 0)
        case closeSilently     // FIN without a byte of response
        case stall             // read the request, never answer
        case slowLoris         // a status line, then one header byte every 300 ms, never finishing
        case garbage           // bytes that are not HTTP at all
        case malformedJSON     // 201 with a body that is not JSON
        case wrongTypes        // 201 with JSON of the wrong shape and types
        case serverError       // 503 with a JSON error
        case hugeBody          // 201 announcing and streaming 64 MiB
        case truncated         // Content-Length 100, 10 bytes, close
        case valid             // a well-formed conversation, so flows go on to wait for pushes that never come
    }

    private let lock = NSLock()
    private var listener: Int32 = -1
    private var open: Set<Int32> = []
    private var stopped = false
    private var next = 0
    private var requests = 0
    private(set) var port: UInt16 = 0
    /// How often each behaviour was served, and how many times the listener went down.
    private(set) var served: [Behaviour: Int] = [:]
    private(set) var outages = 0
    /// Every this many hostile requests the listener closes for `outageMillis`.
    let outageEvery: Int
    let outageMillis: Int

    init(outageEvery: Int = 25, outageMillis: Int = 400) {
        self.outageEvery = outageEvery
        self.outageMillis = outageMillis
    }

    func start() throws {
        try bindListener()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func bindListener() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) }
        }
        lock.withLock {
            listener = fd
            port = UInt16(bigEndian: addr.sin_port)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = lock.withLock { stopped ? -1 : listener }
            if fd < 0 {
                if lock.withLock({ stopped }) { return }
                usleep(10_000)
                continue
            }
            let client = accept(fd, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) { return }
                usleep(1000)
                continue
            }
            let admitted = lock.withLock { () -> Bool in
                if stopped { return false }
                open.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    /// The listener goes away (connections are refused) and comes back on the same port.
    private func outage() {
        let fd = lock.withLock { () -> Int32 in
            let fd = listener
            listener = -1
            outages += 1
            return fd
        }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        // sleep-ok: the outage is the behaviour under test: the port refuses for this long on the real clock the
        // callstorm run under test keeps (400 ms in HostileTargetTests)
        usleep(UInt32(outageMillis * 1000))
        if !lock.withLock({ stopped }) { try? bindListener() }
    }

    func stop() {
        let (fd, clients) = lock.withLock { () -> (Int32, Set<Int32>) in
            stopped = true
            let fd = listener
            listener = -1
            return (fd, open)
        }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private func finish(_ fd: Int32) {
        lock.withLock { _ = open.remove(fd) }
        close(fd)
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard let path = readRequest(fd) else { return finish(fd) }
        if path.hasPrefix("/v1/devices") {
            send(fd, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                + "Connection: close\r\n\r\n{\"ok\":true}")
            return finish(fd)
        }
        let (behaviour, down) = lock.withLock { () -> (Behaviour, Bool) in
            let b = Behaviour.allCases[next % Behaviour.allCases.count]
            next += 1
            requests += 1
            served[b, default: 0] += 1
            return (b, requests % outageEvery == 0)
        }
        if down { Thread.detachNewThread { [self] in outage() } }
        act(behaviour, fd)
    }

    private func act(_ behaviour: Behaviour, _ fd: Int32) {
        switch behaviour {
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        case .closeSilently:
            break
        case .stall:
            // Until the client gives up (its action timeout) or the server stops.
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) > 0 {}
        case .slowLoris:
            send(fd, "HTTP/1.1 200 OK\r\n")
            for _ in 0..<60 {
                guard send(fd, "X") else { break }
                // limits: a slow loris is slow in real time: the client's own timeout must cut it off.
                usleep(300_000)
                if lock.withLock({ stopped }) { break }
            }
        case .garbage:
            send(fd, "\u{00}\u{7F}SPEAK FRIEND AND ENTER\r\n\r\n\u{FF}garbage garbage garbage\r\n")
        case .malformedJSON:
            respond(fd, 201, "{\"id\": \"c-1\", \"version\": 1, \"members\": [")
        case .wrongTypes:
            respond(fd, 201, "{\"id\": 12, \"version\": \"one\", \"members\": {\"device\": null}}")
        case .serverError:
            respond(fd, 503, "{\"error\":\"overloaded\"}")
        case .hugeBody:
            let total = 64 << 20
            guard send(fd, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(total)\r\n"
                + "Connection: close\r\n\r\n") else { break }
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 16)
            var sent = 0
            while sent < total {
                let n = chunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                sent += n
            }
        case .truncated:
            send(fd, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
                + "Connection: close\r\n\r\n{\"id\":\"c-")
        case .valid:
            let id = "c-\(UInt32.random(in: 1...UInt32.max))"
            respond(fd, 201, "{\"id\":\"\(id)\",\"version\":1,\"state\":\"joining\",\"ended\":false,\"members\":[]}")
        }
        finish(fd)
    }

    private func respond(_ fd: Int32, _ status: Int, _ body: String) {
        let reason = status < 300 ? "Created" : "Service Unavailable"
        send(fd, "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }

    @discardableResult
    private func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads one request (headers and a Content-Length body); returns its path.
    private func readRequest(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        while headerEnd == nil {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            data += buffer[0..<n]
            if let r = data.firstRange(of: [13, 10, 13, 10]) { headerEnd = r.upperBound }
            if data.count > 1 << 16 { return nil }
        }
        let head = String(decoding: data[..<headerEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let length = lines.compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while data.count - headerEnd! < length {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            data += buffer[0..<n]
        }
        let requestLine = lines.first?.split(separator: " ") ?? []
        return requestLine.count > 1 ? String(requestLine[1]) : nil
    }
}
