/// Writes HTTP/1.1 responses as bytes straight into a connection's write buffer.
///
/// Why by hand: `String(format:)` costs microseconds per call and interpolation allocates; appending
/// UTF-8 views and digits to a reused `[UInt8]` costs neither. A namespace of pure functions, safe on any
/// thread; connections call it on their loop thread.
enum HTTP1ResponseEncoder {
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// What the connection decided about framing for this response.
    struct Framing {
        /// Send `Connection: close`: the connection closes after this response.
        var close: Bool
        /// Send `Connection: keep-alive` (an HTTP/1.0 client asked for it).
        var echoKeepAlive: Bool
        /// A response to HEAD: `Content-Length` of the body, but no body bytes.
        var omitBody: Bool
    }

    /// Whether the handler asked for the connection to close after this response.
    static func requestsClose(_ response: HTTPResponse) -> Bool {
        for header in response.headers where asciiCaseInsensitiveEquals(header.name, "connection") {
            if asciiCaseInsensitiveEquals(header.value, "close") { return true }
        }
        return false
    }

    /// Appends the whole response (status line, headers, body) to `buffer`.
    static func append(_ response: HTTPResponse, framing: Framing, to buffer: inout [UInt8]) {
        let status = (200...999).contains(response.status) ? response.status : 500
        appendLiteral("HTTP/1.1 ", to: &buffer)
        appendDecimal(status, to: &buffer)
        buffer.append(0x20)
        appendLiteral(reasonPhrase(status), to: &buffer)
        appendCRLF(&buffer)

        var sawServer = false
        for header in response.headers {
            let name = header.name
            // The server owns framing; a handler's own values could contradict the body it returned.
            if asciiCaseInsensitiveEquals(name, "content-length")
                || asciiCaseInsensitiveEquals(name, "transfer-encoding")
                || asciiCaseInsensitiveEquals(name, "connection") {
                continue
            }
            if !sawServer && asciiCaseInsensitiveEquals(name, "server") { sawServer = true }
            appendSanitised(name, to: &buffer)
            buffer.append(0x3A)
            buffer.append(0x20)
            appendSanitised(header.value, to: &buffer)
            appendCRLF(&buffer)
        }
        if !sawServer {
            appendLiteral("Server: callstorm\r\n", to: &buffer)
        }
        if framing.close {
            appendLiteral("Connection: close\r\n", to: &buffer)
        } else if framing.echoKeepAlive {
            appendLiteral("Connection: keep-alive\r\n", to: &buffer)
        }
        // RFC 9110 §8.6: no Content-Length on 204, and none needed on 304 (it would describe another response).
        let bodyAllowed = status != 204 && status != 304
        if bodyAllowed {
            appendLiteral("Content-Length: ", to: &buffer)
            appendDecimal(response.body.count, to: &buffer)
            appendCRLF(&buffer)
        }
        appendCRLF(&buffer)
        if bodyAllowed && !framing.omitBody {
            buffer.append(contentsOf: response.body)
        }
    }

    /// A response the server makes itself for a request it rejected; always closes the connection.
    static func errorResponse(_ status: Int) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [HTTPHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Array((reasonPhrase(status).description + "\n").utf8)
        )
    }

    // MARK: - Pieces

    @inline(__always)
    static func appendCRLF(_ buffer: inout [UInt8]) {
        buffer.append(0x0D)
        buffer.append(0x0A)
    }

    @inline(__always)
    static func appendLiteral(_ text: StaticString, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal without going through `String`.
    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value == 0 {
            buffer.append(0x30)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value.magnitude
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
                rest /= 10
                count += 1
            }
            if value < 0 { buffer.append(0x2D) }
            while count > 0 {
                count -= 1
                buffer.append(raw[count])
            }
        }
    }

    /// Appends a handler-supplied string, dropping CR and LF so a value cannot inject header lines. One pass
    /// over the bytes at once (`withUTF8`): two `contains` through UTF8View's iterator were half of a response's
    /// encoding (~1,500 instructions a response in the capacity flow's profile).
    @inline(__always)
    static func appendSanitised(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            if !bytes.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
                buffer.append(contentsOf: bytes)
                return
            }
            for byte in bytes where byte != 0x0D && byte != 0x0A {
                buffer.append(byte)
            }
        }
    }

    static func reasonPhrase(_ status: Int) -> StaticString {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}
