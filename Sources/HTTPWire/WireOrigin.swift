import TextEscaping
#if canImport(Glibc)
import Glibc
#endif

/// Where a connection goes: scheme, host and port (RFC 6454's origin). Connections are pooled per origin.
public struct WireOrigin: Hashable, Sendable {
    public var secure: Bool
    /// As written in the URL, without IPv6 brackets.
    public var host: String
    public var port: Int

    public init(secure: Bool, host: String, port: Int) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// The Host header's value: the port only when it is not the scheme's default.
    public var hostHeader: String {
        var out: [UInt8] = []
        appendHostHeader(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `hostHeader`'s bytes appended to `out`, with no String made (a request's Host line: the interpolated
    /// String cost ~470 instructions a request, issue 33).
    func appendHostHeader(to out: inout [UInt8]) {
        TextBytes.withUTF8(host) { name in
            // Bytes, not `contains(":")`: a String argument is Foundation's search (CFStringFind).
            let bracketed = name.contains(0x3A)
            if bracketed { out.append(0x5B) }
            out.append(contentsOf: name)
            if bracketed { out.append(0x5D) }
        }
        guard port != (secure ? 443 : 80) else { return }
        out.append(0x3A)
        JSONText.appendInteger(Int64(port), to: &out)
    }

    /// Splits `url` into its origin and request target (path and query; `/` when empty; the fragment dropped).
    /// Over the URL's UTF-8 bytes (every delimiter is ASCII): the Character-wise `hasPrefix`, `firstIndex` and
    /// `Int(Substring)` it replaces cost ~34,000 instructions a request, the most of any step of a device's send.
    public static func parse(_ url: String) throws(WireError) -> (origin: WireOrigin, target: String) {
        var url = url
        let parsed = url.withUTF8 { bytes in
            Self.parse(bytes: bytes).map { origin, target in (origin, Self.target(bytes, target)) }
        }
        switch parsed {
        case .success(let parts): return parts
        case .failure(let why): throw .badURL(why.message(url))
        }
    }

    /// `parse`, with the request target appended to `out` as bytes instead of made a String (`WireRequest`), each
    /// byte `keep` lets through. `known`: the origin of a URL parsed before and the bytes that gave it; a URL that
    /// starts with the same `scheme://authority` takes it as it is (the same bytes give the same origin), and
    /// another is parsed and kept in its place.
    static func parse(_ url: String, appendingTarget out: inout [UInt8], known: inout Known?,
                      keep: (UInt8) -> Bool) throws(WireError) -> WireOrigin {
        var url = url
        let parsed = url.withUTF8 { bytes -> Result<WireOrigin, Refusal> in
            let split: Result<(origin: WireOrigin, target: Target), Refusal>
            if let seen = known, let target = seen.target(in: bytes) {
                split = .success((seen.origin, target))
            } else {
                split = Self.parse(bytes: bytes)
                if case .success(let (origin, target)) = split {
                    known = Known(authority: Array(bytes[..<target.range.lowerBound]), origin: origin)
                }
            }
            return split.map { origin, target in
                if target.slash { out.append(0x2F) }
                let range = bytes[target.range]
                if range.allSatisfy(keep) {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: range))
                } else {
                    out += range.filter(keep)
                }
                return origin
            }
        }
        switch parsed {
        case .success(let origin): return origin
        case .failure(let why): throw .badURL(why.message(url))
        }
    }

    /// A URL's `scheme://authority` bytes and the origin `parse` read from them: a sender's requests go to one
    /// target, and parsing each URL again (the host made a String, the port read) cost ~1,400 instructions a
    /// request (issue 33).
    public struct Known: Sendable {
        /// Up to the end of the authority: no `/`, `?` or `#` after the scheme.
        let authority: [UInt8]
        let origin: WireOrigin

        /// Where the target lies in `bytes` when they start with `authority` followed by the end, `/`, `?` or
        /// `#`, as `parse(bytes:)` would find it; nil for any other URL.
        func target(in bytes: UnsafeBufferPointer<UInt8>) -> Target? {
            let n = authority.count
            guard bytes.count >= n, authority.withUnsafeBufferPointer({ prefix in
                prefix.count == 0 || memcmp(prefix.baseAddress!, bytes.baseAddress!, n) == 0
            }) else { return nil }
            if n < bytes.count, bytes[n] != 0x2F, bytes[n] != 0x3F, bytes[n] != 0x23 { return nil }  // / ? #
            let end = bytes[n...].firstIndex(of: 0x23) ?? bytes.count  // '#'
            return (n..<end, n == end || bytes[n] == 0x3F)
        }
    }

    /// Where the request target lies in a URL's bytes, and whether a `/` goes before it.
    typealias Target = (range: Range<Int>, slash: Bool)

    private static func target(_ bytes: UnsafeBufferPointer<UInt8>, _ target: Target) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[target.range]), as: UTF8.self)
        return target.slash ? "/" + text : text
    }

    /// Why `parse` refused a URL; the message names the URL (and the port's text) as before.
    enum Refusal: Error {
        case scheme, userInfo, unclosedBracket, afterIPv6, noHost
        case port(String)

        func message(_ url: String) -> String {
            switch self {
            case .scheme: return "\(url) is not an http:// or https:// URL"
            case .userInfo: return "\(url) has user information, which is not supported"
            case .unclosedBracket: return "\(url): unclosed IPv6 bracket"
            case .afterIPv6: return "\(url): bytes after the IPv6 address"
            case .noHost: return "\(url) has no host"
            case .port(let text): return "\(url): port \"\(text)\" is not 1…65535"
            }
        }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>)
        -> Result<(origin: WireOrigin, target: Target), Refusal> {
        let secure: Bool
        let start: Int
        if startsWith(bytes, "http://") {
            (secure, start) = (false, 7)
        } else if startsWith(bytes, "https://") {
            (secure, start) = (true, 8)
        } else {
            return .failure(.scheme)
        }
        let end = bytes[start...].firstIndex(of: 0x23) ?? bytes.count  // '#'
        let slash = bytes[start..<end].firstIndex { $0 == 0x2F || $0 == 0x3F } ?? end  // '/' or '?'
        let target: Target = (slash..<end, slash == end || bytes[slash] == 0x3F)
        guard !bytes[start..<slash].contains(0x40) else { return .failure(.userInfo) }  // '@'
        var hostRange = start..<slash
        var portRange: Range<Int>?
        if start < slash, bytes[start] == 0x5B {  // '['
            guard let close = bytes[start..<slash].firstIndex(of: 0x5D) else { return .failure(.unclosedBracket) }
            hostRange = (start + 1)..<close
            if close + 1 < slash {
                guard bytes[close + 1] == 0x3A else { return .failure(.afterIPv6) }  // ':'
                portRange = (close + 2)..<slash
            }
        } else if let colon = bytes[start..<slash].lastIndex(of: 0x3A) {
            hostRange = start..<colon
            portRange = (colon + 1)..<slash
        }
        guard !hostRange.isEmpty else { return .failure(.noHost) }
        var port = secure ? 443 : 80
        if let portRange {
            guard let value = number(bytes[portRange]), (1...65535).contains(value) else {
                return .failure(.port(String(decoding: UnsafeBufferPointer(rebasing: bytes[portRange]), as: UTF8.self)))
            }
            port = value
        }
        let host = String(decoding: UnsafeBufferPointer(rebasing: bytes[hostRange]), as: UTF8.self)
        return .success((WireOrigin(secure: secure, host: host, port: port), target))
    }

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        return (0..<count).allSatisfy { bytes[$0] == prefix.utf8Start[$0] }
    }

    /// The port's digits as `Int(_:)` reads them (an optional `+` or `-`, then decimal digits); nil for anything
    /// else; a value past any port's stays past it (no overflow).
    private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var digits = bytes[...]
        var negative = false
        if let sign = digits.first, sign == 0x2B || sign == 0x2D {
            negative = sign == 0x2D
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = min(value * 10 + Int(byte - 0x30), 1_000_000)
        }
        return negative ? -value : value
    }
}
