/// One request, serialized once into the bytes that go on the wire, so a load loop that sends it again and
/// again (a raw GET, a device's poll) builds no string per send.
public struct WireRequest: Sendable {
    public let origin: WireOrigin
    /// Request line, headers, empty line and body.
    public let bytes: [UInt8]
    /// HEAD: the response has no body whatever its headers say.
    public let isHead: Bool
    /// From the send to the complete response, connecting included (curl's CURLOPT_TIMEOUT_MS).
    public var timeoutMillis: Int
    /// Open a new connection for this request and close it after (libcurl's FRESH_CONNECT and FORBID_REUSE): a
    /// phone whose idle connection did not survive.
    public var freshConnection = false
    /// Keep the response's headers in `WireResponse.headers` (an allocation per header).
    public var collectsHeaders = true

    /// Builds the request: `Host` from the URL, then `headers` in order, then Content-Length when there is a
    /// body (or the method usually has one). A `Host` or `Content-Length` among `headers` replaces the one this
    /// would write (as libcurl lets a caller's header replace its own), so neither goes out twice. Header names and
    /// values must not contain CR or LF.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                timeoutMillis: Int = 10_000) throws(WireError) {
        let (origin, target) = try WireOrigin.parse(url)
        guard !method.isEmpty, method.utf8.allSatisfy(HTTP1ResponseParser.isTokenByte) else {
            throw .badHeader("method \"\(method)\" is not a token")
        }
        let givesHost = headers.contains { Self.named($0.name, "host") }
        let givesLength = headers.contains { Self.named($0.name, "content-length") }
        var out: [UInt8] = []
        out.reserveCapacity(128 + (body?.count ?? 0))
        out += method.utf8
        out.append(0x20)
        if target.utf8.contains(where: { $0 == 0x20 || $0 == 0x0D || $0 == 0x0A }) {
            out += target.utf8.filter { $0 != 0x20 && $0 != 0x0D && $0 != 0x0A }
        } else {
            out += target.utf8  // the common case: no filtered copy
        }
        out += " HTTP/1.1\r\n".utf8
        if !givesHost {
            out += "Host: ".utf8
            out += origin.hostHeader.utf8
            out += "\r\n".utf8
        }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTP1ResponseParser.isTokenByte) else {
                throw .badHeader("name \"\(name)\" is not a token")
            }
            guard !value.utf8.contains(0x0D), !value.utf8.contains(0x0A) else {
                throw .badHeader("the value of \(name) contains CR or LF")
            }
            out += name.utf8
            out += ": ".utf8
            out += value.utf8
            out += "\r\n".utf8
        }
        if !givesLength, body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
            out += "Content-Length: \(body?.count ?? 0)\r\n".utf8
        }
        out += "\r\n".utf8
        if let body { out += body }
        self.origin = origin
        self.bytes = out
        self.isHead = method == "HEAD"
        self.timeoutMillis = timeoutMillis
    }

    /// Whether header name `name` is `lower` (given in lower case), ignoring ASCII case, without a new String.
    public static func named(_ name: String, _ lower: StaticString) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == lower.utf8CodeUnitCount else { return false }
        var expected = lower.utf8Start
        for byte in utf8 {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard folded == expected.pointee else { return false }
            expected += 1
        }
        return true
    }
}
