import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client on TestSupport's `LoopbackSocket`, so the server tests depend on nothing but
/// the kernel. Every read has a timeout, so a server bug fails a test instead of hanging it.
/// `@unchecked Sendable`: an instance may be handed to another thread, but only one thread uses it at a time.
final class TestClient: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case timedOut
        case closedByPeer
        case malformed(String)

        var description: String {
            switch self {
            case .timedOut: return "timed out waiting for the server"
            case .closedByPeer: return "the server closed the connection"
            case .malformed(let why): return "malformed response: \(why)"
            }
        }
    }

    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name == name.lowercased() }?.value
        }

        var bodyString: String { String(decoding: body, as: UTF8.self) }
    }

    private let socket: LoopbackSocket
    private var buffer: [UInt8] = []

    init(port: Int, timeoutSeconds: Double = 5) throws {
        let millis = Int(timeoutSeconds * 1000)
        socket = try LoopbackSocket(port: port, receiveTimeoutMillis: millis, sendTimeoutMillis: millis, noDelay: true)
    }

    func close() { socket.close() }

    /// Closes with RST instead of FIN (SO_LINGER 0), so the server sees an error at once.
    func reset() { socket.reset() }

    /// Half-closes: the server sees EOF, the client can still read.
    func shutdownWrite() { socket.shutdownWrite() }

    func send(_ text: String) throws { try socket.send(text) }

    func send(_ bytes: [UInt8]) throws { try socket.send(bytes) }

    /// Reads more bytes into the buffer; false on EOF or reset.
    private func fill() throws -> Bool {
        switch socket.receive() {
        case .data(let chunk):
            buffer.append(contentsOf: chunk)
            return true
        case .end: return false
        case .failed(let code):
            if code == EAGAIN || code == EWOULDBLOCK { throw Failure.timedOut }
            return false
        }
    }

    /// Reads one response (a `100 Continue` counts as one). `bodiless`: the answer to HEAD, which has a
    /// Content-Length but no body.
    func readResponse(bodiless: Bool = false) throws -> Response {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = findHeadEnd()
            if headEnd == nil {
                guard try fill() else { throw Failure.closedByPeer }
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure.malformed(statusLine)
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed(line) }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        var response = Response(status: status, headers: headers, body: [])
        if bodiless || status < 200 || status == 204 || status == 304 { return response }
        if let lengthText = response.header("content-length"), let length = Int(lengthText) {
            while buffer.count < length {
                guard try fill() else { throw Failure.closedByPeer }
            }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Sends a request and reads its response.
    func request(_ method: String, _ path: String, headers: [String] = [], body: String? = nil) throws -> Response {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n"
        if let body { text += body }
        try send(text)
        return try readResponse(bodiless: method == "HEAD")
    }

    /// Whether the server closes the connection (EOF or reset) within the read timeout, ignoring any bytes
    /// still in flight.
    func waitForClose() -> Bool {
        do {
            while try fill() {}
            return true
        } catch {
            return false
        }
    }

    /// Bytes buffered but not yet returned as a response.
    var leftover: [UInt8] { buffer }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}
