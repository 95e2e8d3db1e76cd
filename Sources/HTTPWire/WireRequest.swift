import TextEscaping

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
        try self.init(method: method, url: url, body: body, timeoutMillis: timeoutMillis) { origin throws(WireError) in
            try Head(origin: origin, headers: headers)
        }
    }

    /// The same request with its header lines taken from `head`, asked once the URL's origin is known: a caller
    /// that sends many requests of a few shapes keeps their heads (`WireSender`) and each send copies one instead
    /// of checking and writing every name and value again (issue 33). The bytes are `init(method:url:headers:…)`'s.
    public init(method: String, url: String, body: [UInt8]?, timeoutMillis: Int,
                head: (WireOrigin) throws(WireError) -> Head) throws(WireError) {
        var known: WireOrigin.Known?
        try self.init(method: method, url: url, body: body, timeoutMillis: timeoutMillis, known: &known, head: head)
    }

    /// The same, with the URL's origin taken from `known` when the URL starts with the same `scheme://authority`
    /// (`WireOrigin.Known`: a sender keeps the last one), and `known` set to this URL's otherwise.
    public init(method: String, url: String, body: [UInt8]?, timeoutMillis: Int, known: inout WireOrigin.Known?,
                head: (WireOrigin) throws(WireError) -> Head) throws(WireError) {
        // Over each String's bytes at once (`withUTF8`), not through UTF8View's iterator: the per-byte checks and
        // appends that way cost ~10,000 instructions a request (the capacity flow's profile, issue 33).
        var out: [UInt8] = []
        out.reserveCapacity(256 + (body?.count ?? 0))
        Self.append(method, to: &out)
        out.append(0x20)
        // The target straight from the URL's bytes, blanks and line ends left out (a String of it made and then
        // copied cost an allocation a request).
        let origin = try WireOrigin.parse(url, appendingTarget: &out, known: &known) {
            $0 != 0x20 && $0 != 0x0D && $0 != 0x0A
        }
        guard !method.isEmpty, Self.all(method, HTTP1ResponseParser.isTokenByte) else {
            throw .badHeader("method \"\(method)\" is not a token")
        }
        Self.appendLiteral(" HTTP/1.1\r\n", to: &out)
        let head = try head(origin)
        out.append(contentsOf: head.bytes)
        if !head.givesLength, body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
            Self.appendLiteral("Content-Length: ", to: &out)
            JSONText.appendInteger(Int64(body?.count ?? 0), to: &out)
            Self.appendLiteral("\r\n", to: &out)
        }
        Self.appendLiteral("\r\n", to: &out)
        if let body { out += body }
        self.origin = origin
        self.bytes = out
        self.isHead = method == "HEAD"
        self.timeoutMillis = timeoutMillis
    }

    /// A request's header lines after the request line, checked and written once: `Host` from the origin unless
    /// the headers give one, then the headers in order, each line with its CRLF.
    public struct Head: Sendable {
        public let origin: WireOrigin
        let bytes: [UInt8]
        /// A `Content-Length` among the headers: the request writes none of its own.
        let givesLength: Bool

        public init(origin: WireOrigin, headers: [(name: String, value: String)]) throws(WireError) {
            let givesHost = headers.contains { WireRequest.named($0.name, "host") }
            givesLength = headers.contains { WireRequest.named($0.name, "content-length") }
            var out: [UInt8] = []
            out.reserveCapacity(128)
            if !givesHost {
                WireRequest.appendLiteral("Host: ", to: &out)
                origin.appendHostHeader(to: &out)
                WireRequest.appendLiteral("\r\n", to: &out)
            }
            for (name, value) in headers {
                guard !name.isEmpty, WireRequest.all(name, HTTP1ResponseParser.isTokenByte) else {
                    throw .badHeader("name \"\(name)\" is not a token")
                }
                guard WireRequest.all(value, { $0 != 0x0D && $0 != 0x0A }) else {
                    throw .badHeader("the value of \(name) contains CR or LF")
                }
                WireRequest.append(name, to: &out)
                WireRequest.appendLiteral(": ", to: &out)
                WireRequest.append(value, to: &out)
                WireRequest.appendLiteral("\r\n", to: &out)
            }
            self.origin = origin
            bytes = out
        }
    }

    /// Appends `text`'s UTF-8 with one copy.
    @inline(__always)
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    @inline(__always)
    static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether every UTF-8 byte of `text` passes `test`.
    @inline(__always)
    static func all(_ text: String, _ test: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(test) }
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
