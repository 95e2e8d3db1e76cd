/// `name=value;flag` parameters as they follow a URI or header value; names compare case-insensitively and keep
/// their order for serialisation.
public struct SIPParameters: Sendable, Equatable {
    public var items: [(name: String, value: String?)]

    public init(_ items: [(name: String, value: String?)] = []) { self.items = items }

    public static func == (a: SIPParameters, b: SIPParameters) -> Bool {
        a.items.count == b.items.count
            && zip(a.items, b.items).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Parses `;a=b;c` (the leading semicolon optional).
    public init(parsing text: Substring) {
        items = []
        for part in text.utf8Split(0x3B) {
            let piece = part.trimmingSpaces
            guard !piece.isEmpty else { continue }
            if let eq = piece.utf8.firstIndex(of: 0x3D) {
                items.append((String(piece[..<eq].trimmingSpaces),
                              String(piece[piece.utf8.index(after: eq)...].trimmingSpaces)))
            } else {
                items.append((String(piece), nil))
            }
        }
    }

    /// `SIPParameters(parsing:)` over the bytes `lo..<hi` of a value (an address's or a Via's parameters), without
    /// building the text first or stepping through `Substring` indices.
    init(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) {
        items = []
        var start = lo
        while start <= hi {
            let end = ValueBytes.find(0x3B, b, start, hi)
            let (plo, phi) = ValueBytes.trim(b, start, end)
            if plo < phi {
                let eq = ValueBytes.find(0x3D, b, plo, phi)
                if eq < phi {
                    let (nlo, nhi) = ValueBytes.trim(b, plo, eq)
                    let (vlo, vhi) = ValueBytes.trim(b, eq + 1, phi)
                    items.append((ValueBytes.string(b, nlo, nhi), ValueBytes.string(b, vlo, vhi)))
                } else {
                    items.append((ValueBytes.string(b, plo, phi), nil))
                }
            }
            start = end + 1
        }
    }

    /// `SIPParameters(parsing: text)[name]` without building the list: the first parameter named `name`, nil for
    /// a flag or when absent.
    public static func lookup(_ name: String, in text: Substring) -> String? {
        var start = text.utf8.startIndex
        while start <= text.utf8.endIndex {
            let end = text[start...].utf8.firstIndex(of: 0x3B) ?? text.endIndex
            let piece = text[start..<end].trimmingSpaces
            if !piece.isEmpty {
                let eq = piece.utf8.firstIndex(of: 0x3D) ?? piece.endIndex
                if asciiCaseEqual(eq == piece.endIndex ? piece : piece[..<eq].trimmingSpaces, name) {
                    return eq == piece.endIndex ? nil : String(piece[piece.utf8.index(after: eq)...].trimmingSpaces)
                }
            }
            guard end < text.endIndex else { return nil }
            start = text.utf8.index(after: end)
        }
        return nil
    }

    public subscript(name: String) -> String? {
        get { items.first { asciiCaseEqual($0.name, name) }?.value ?? nil }
        set {
            if let i = items.firstIndex(where: { asciiCaseEqual($0.name, name) }) {
                items[i].value = newValue
            } else {
                items.append((name, newValue))
            }
        }
    }

    public func has(_ name: String) -> Bool { items.contains { asciiCaseEqual($0.name, name) } }

    /// `;a=b;c`, empty when there are none.
    public var text: String {
        var out = ""
        for item in items {
            out += ";"
            out += item.name
            if let value = item.value {
                out += "="
                out += value
            }
        }
        return out
    }
}

/// A `Via` value (§20.42): `SIP/2.0/UDP host:port;branch=z9hG4bK…;rport`.
public struct SIPVia: Sendable, Equatable {
    public var transport: String
    public var sentBy: String
    public var parameters: SIPParameters

    public init(transport: String, sentBy: String, branch: String, rport: Bool = true) {
        self.transport = transport
        self.sentBy = sentBy
        parameters = SIPParameters([("branch", branch)])
        if rport { parameters.items.append(("rport", nil)) }
    }

    /// The first Via of a comma-joined value; nil when it is not `SIP/2.0/<transport> <sent-by>`.
    public init?(_ value: String) {
        guard let parts = ValueBytes.with(value, { b in Self.parts(b).map { p in
            (ValueBytes.string(b, p.transport.0, p.transport.1), ValueBytes.string(b, p.sentBy.0, p.sentBy.1),
             SIPParameters(b, p.parameters.0, p.parameters.1))
        } }) else { return nil }
        transport = parts.0.uppercased()
        sentBy = parts.1
        parameters = parts.2
    }

    /// The branch of the first Via in `value`, as `SIPVia(value)?.branch` reads it, without building the value.
    public static func branch(in value: String) -> String? { ValueBytes.with(value, branch) }

    /// `branch(in:)` over a value's bytes (`b` is the value alone, from offset 0).
    static func branch(_ b: ValueBytes.Bytes) -> String? { branch(b, strings: nil) }

    /// `branch(_:)`, the string taken from `strings` when it has these bytes.
    static func branch(_ b: ValueBytes.Bytes, strings: SIPStringCache?) -> String? {
        let name: StaticString = "branch"
        guard let p = parts(b), let (lo, hi) = ValueBytes.lookupRange(
            ValueBytes.Bytes(start: name.utf8Start, count: name.utf8CodeUnitCount), b, p.parameters.0,
            p.parameters.1) else { return nil }
        return strings?.string(b, lo, hi) ?? ValueBytes.string(b, lo, hi)
    }

    /// `branch(_:)`, `known` itself when the branch has its bytes: a request's Via read back for its fields
    /// gives the branch the builder wrote, and a `String` made of it again was an allocation a request.
    static func branch(_ b: ValueBytes.Bytes, known: String) -> String? {
        let name: StaticString = "branch"
        guard let p = parts(b), let (lo, hi) = ValueBytes.lookupRange(
            ValueBytes.Bytes(start: name.utf8Start, count: name.utf8CodeUnitCount), b, p.parameters.0,
            p.parameters.1) else { return nil }
        let same = ValueBytes.with(known) { k in k.elementsEqual(UnsafeBufferPointer(rebasing: b[lo..<hi])) }
        return same ? known : ValueBytes.string(b, lo, hi)
    }

    /// Byte ranges of the first Via's transport, sent-by and parameters (from its first `;`).
    private static func parts(_ b: ValueBytes.Bytes)
        -> (transport: (Int, Int), sentBy: (Int, Int), parameters: (Int, Int))? {
        let end = ValueBytes.firstComma(b, 0, b.count)
        var protocolEnd = 0
        while protocolEnd < end, b[protocolEnd] != 32, b[protocolEnd] != 9 { protocolEnd += 1 }
        // `SIP/2.0/<transport>`, SIP in any case, no further slash.
        guard protocolEnd >= 8 else { return nil }
        let prefix: StaticString = "SIP/2.0/"
        for k in 0..<8 {
            let a = b[k], p = prefix.utf8Start[k]
            guard a == p || (p >= 0x41 && p <= 0x5A && a | 0x20 == p | 0x20) else { return nil }
        }
        guard ValueBytes.find(0x2F, b, 8, protocolEnd) == protocolEnd else { return nil }
        let (restLo, restHi) = ValueBytes.trim(b, protocolEnd, end)
        let semicolon = ValueBytes.findByte(0x3B, b, restLo, restHi)
        let sentBy = ValueBytes.trim(b, restLo, semicolon)
        guard sentBy.0 < sentBy.1 else { return nil }
        return ((8, protocolEnd), sentBy, (semicolon, restHi))
    }

    public var branch: String? { parameters["branch"] }

    public var text: String { "SIP/2.0/" + transport + " " + sentBy + parameters.text }

    /// `text` of a Via that asks for rport (RFC 3581) with the branch as the slot: the Via a user agent writes on
    /// every request it sends, laid out once.
    public static func template(transport: String, sentBy: String) -> SIPHeaderTemplate {
        "SIP/2.0/\(transport) \(sentBy);branch=\(.slot);rport"
    }
}

/// A name-addr or addr-spec with header parameters: the value of From, To, Contact, Route (§20.10, §25.1).
public struct SIPAddress: Sendable, Equatable {
    public var displayName: String?
    /// The URI with its own parameters, without angle brackets.
    public var uri: String
    /// Header parameters after the URI (`tag`, `expires`, …).
    public var parameters: SIPParameters

    public init(uri: String, displayName: String? = nil, parameters: SIPParameters = SIPParameters()) {
        self.uri = uri
        self.displayName = displayName
        self.parameters = parameters
    }

    /// Parses the first address of a (possibly comma-joined) value.
    public init?(_ value: String) {
        guard let address = ValueBytes.with(value, { SIPAddress(bytes: $0) }) else { return nil }
        self = address
    }

    /// `init?(_:)` over a value's bytes (`b` is the value alone, from offset 0): a message's From, To and Contact
    /// are read from its header bytes without making the value a `String` first.
    init?(bytes b: ValueBytes.Bytes) {
        guard let p = Self.parts(b) else { return nil }
        displayName = p.name.map { n in ValueBytes.string(b, n.0, n.1) }
        uri = ValueBytes.string(b, p.uri.0, p.uri.1)
        parameters = SIPParameters(b, p.parameters.0, p.parameters.1)
    }

    /// Whether the URI of the first address in `b` (a value's bytes) is `uri`, byte for byte, as `SIPAddress(bytes:)`
    /// would read it; nil when `b` is no address. A re-INVITE's Contact is nearly always the target the dialog has.
    static func uri(_ b: ValueBytes.Bytes, equals uri: String) -> Bool? {
        guard let p = parts(b) else { return nil }
        return ValueBytes.with(uri) { u in
            guard u.count == p.uri.1 - p.uri.0 else { return false }
            for k in 0..<u.count where u[k] != b[p.uri.0 + k] { return false }
            return true
        }
    }

    /// The tag of the first address in `value`, as `SIPAddress(value)?.tag` reads it, without building the value.
    public static func tag(in value: String) -> String? { ValueBytes.with(value, tag) }

    /// `tag(in:)` over a value's bytes (`b` is the value alone, from offset 0).
    static func tag(_ b: ValueBytes.Bytes) -> String? {
        parts(b).flatMap { ValueBytes.lookup("tag", b, $0.parameters.0, $0.parameters.1) }
    }

    /// The first address in `b` (a value's bytes) with `tag` added, as `SIPAddress` with its tag set writes it;
    /// nil when `b` is no address or has a tag already (the value then goes on as it is). An address already in
    /// the form `text` writes (`<uri>;a=b`, no spaces, quotes, commas or empty parameters) gets `;tag=` appended
    /// to its bytes; any other is parsed and written again.
    static func adding(tag: String, to b: ValueBytes.Bytes) -> [UInt8]? {
        if takesTagAsWritten(b) {
            var out = Array(b)
            out.appendASCII(";tag=")
            out.appendUTF8(tag)
            return out
        }
        guard var address = SIPAddress(ValueBytes.string(b, 0, b.count)), address.tag == nil else { return nil }
        address.tag = tag
        return Array(address.text.utf8)
    }

    /// Whether `b`, a To value, gets a tag by `;tag=<tag>` appended to its bytes (an address in the form `text`
    /// writes, without a tag); `adding(tag:to:)` parses and writes any other again.
    static func takesTagAsWritten(_ b: ValueBytes.Bytes) -> Bool {
        guard let p = parts(b), p.name == nil, p.uri.0 == 1 else { return false }
        return isWrittenForm(b, parameters: p.parameters.0)
    }

    /// Whether `b`, an address that starts `<`, reads back as the same bytes through `text`, and names no tag.
    private static func isWrittenForm(_ b: ValueBytes.Bytes, parameters lo: Int) -> Bool {
        for byte in b where byte == 0x20 || byte == 0x09 || byte == 0x22 || byte == 0x2C { return false }
        guard lo < b.count else { return true }
        guard b[lo] == 0x3B, b[b.count - 1] != 0x3B else { return false }
        var start = lo + 1
        while start < b.count {
            let end = ValueBytes.find(0x3B, b, start, b.count)
            let eq = ValueBytes.find(0x3D, b, start, end)
            guard end > start, !ValueBytes.equals(b, start, eq, tagName) else { return false }
            start = end + 1
        }
        return true
    }

    private static var tagName: ValueBytes.Bytes {
        let name: StaticString = "tag"
        return UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    /// Byte ranges of the first address's display name (quotes trimmed; nil when empty), URI and parameters.
    private static func parts(_ b: ValueBytes.Bytes)
        -> (name: (Int, Int)?, uri: (Int, Int), parameters: (Int, Int))? {
        let (lo, hi) = ValueBytes.trim(b, 0, ValueBytes.firstComma(b, 0, b.count))
        let result: (name: (Int, Int)?, uri: (Int, Int), parameters: (Int, Int))
        let open = ValueBytes.find(0x3C, b, lo, hi)
        if open < hi {
            let close = ValueBytes.findByte(0x3E, b, open, hi)
            guard close < hi else { return nil }
            var (nlo, nhi) = ValueBytes.trim(b, lo, open)
            let named = nlo < nhi
            if nlo < nhi, b[nlo] == 0x22 { nlo += 1 }
            if nhi > nlo, b[nhi - 1] == 0x22 { nhi -= 1 }
            result = (named ? (nlo, nhi) : nil, (open + 1, close), (close + 1, hi))
        } else {
            // addr-spec: parameters after the URI belong to the header (§20.10).
            let semicolon = ValueBytes.findByte(0x3B, b, lo, hi)
            result = (nil, (lo, semicolon), (semicolon, hi))
        }
        return ValueBytes.find(0x3A, b, result.uri.0, result.uri.1) < result.uri.1 ? result : nil
    }

    public var tag: String? {
        get { parameters["tag"] }
        set { parameters["tag"] = newValue }
    }

    public var text: String {
        var out: [UInt8] = []
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `text`'s bytes appended to `out` (a dialog lays its From and To lines out this way, without the `String`
    /// concatenations `text` once was).
    public func write(into out: inout [UInt8]) {
        out.reserveCapacity(out.count + uri.utf8.count + 48)
        if let displayName {
            out.append(0x22)
            out.appendUTF8(displayName)
            out.appendASCII("\" ")
        }
        out.append(0x3C)
        out.appendUTF8(uri)
        out.append(0x3E)
        for item in parameters.items {
            out.append(0x3B)
            out.appendUTF8(item.name)
            if let value = item.value {
                out.append(0x3D)
                out.appendUTF8(value)
            }
        }
    }
}

/// `CSeq: 314159 INVITE` (§20.16).
public struct SIPCSeq: Sendable, Equatable {
    public var number: UInt32
    public var method: SIPMethod

    public init(_ number: UInt32, _ method: SIPMethod) {
        self.number = number
        self.method = method
    }

    public init?(_ value: String) {
        guard let cseq = ValueBytes.with(value, Self.reading) else { return nil }
        self = cseq
    }

    /// `init?(_:)` over a value's bytes (`b` is the value alone, from offset 0).
    static func reading(_ b: ValueBytes.Bytes) -> SIPCSeq? {
        if let plain = plain(b) { return plain }
        // Two pieces between spaces (tabs only trimmed at the ends): a number of at most 10 digits, a token.
        let (lo, hi) = ValueBytes.trim(b, 0, b.count)
        var pieces: [(Int, Int)] = []
        var start = lo
        while start <= hi, pieces.count <= 2 {
            let end = ValueBytes.find(0x20, b, start, hi)
            if end > start { pieces.append((start, end)) }
            start = end + 1
        }
        guard pieces.count == 2, pieces[0].1 - pieces[0].0 <= 10,
              (pieces[1].0..<pieces[1].1).allSatisfy({ SIPParser.isTokenByte(b[$0]) }),
              let number = UInt32(ValueBytes.string(b, pieces[0].0, pieces[0].1)) else { return nil }
        return SIPCSeq(number, SIPMethod(ValueBytes.string(b, pieces[1].0, pieces[1].1)))
    }

    public var text: String { String(number) + " " + method.rawValue }

    /// `<digits> <token>` with one space and nothing around it, as user agents write a CSeq: read without the
    /// pieces and strings of the general reading above (nil for any other shape, which that reading decides).
    private static func plain(_ b: ValueBytes.Bytes) -> SIPCSeq? {
        var i = 0
        var number: UInt64 = 0
        while i < b.count, i < 10, b[i] >= 0x30, b[i] <= 0x39 {
            number = number * 10 + UInt64(b[i] - 0x30)
            i += 1
        }
        guard i > 0, i < b.count, b[i] == 0x20, number <= UInt64(UInt32.max) else { return nil }
        i += 1
        let start = i
        while i < b.count, SIPParser.isTokenByte(b[i]) { i += 1 }
        guard i > start, i == b.count else { return nil }
        return SIPCSeq(UInt32(number), SIPMethod.named(UnsafeBufferPointer(rebasing: b[start..<i])))
    }
}

public enum SIPHeaderValues {
    /// Splits a comma-joined header value at commas outside quotes and angle brackets (§7.3.1).
    public static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = value[...]
        while true {
            let end = firstComma(rest)
            parts.append(rest[..<end])
            guard end < rest.endIndex else { return parts }
            rest = rest[rest.utf8.index(after: end)...]
        }
    }

    /// The value up to its first top-level comma: what `split(value).first` is, without the array.
    public static func first(_ value: String) -> Substring {
        let end = ValueBytes.with(value) { ValueBytes.firstComma($0, 0, $0.count) }
        return value[..<value.utf8.index(value.utf8.startIndex, offsetBy: end)]
    }

    private static func firstComma(_ text: Substring) -> String.Index {
        var quoted = false, angle = false
        var i = text.utf8.startIndex
        while i < text.utf8.endIndex {
            switch text.utf8[i] {
            case 0x22: quoted.toggle()
            case 0x3C where !quoted: angle = true
            case 0x3E where !quoted: angle = false
            case 0x2C where !quoted && !angle: return i
            default: break
            }
            i = text.utf8.index(after: i)
        }
        return text.endIndex
    }
}

/// ASCII case-insensitive equality, for tokens (header and parameter names, methods).
func asciiCaseEqual<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    return a.utf8.elementsEqual(b.utf8) { x, y in
        x == y || ((x | 0x20) == (y | 0x20) && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var lo = utf8.startIndex, hi = utf8.endIndex
        while lo < hi, utf8[lo] == 32 || utf8[lo] == 9 { lo = utf8.index(after: lo) }
        while hi > lo, utf8[utf8.index(before: hi)] == 32 || utf8[utf8.index(before: hi)] == 9 {
            hi = utf8.index(before: hi)
        }
        return self[lo..<hi]
    }

    var trimmingQuotes: Substring {
        var s = self
        if s.utf8.first == 0x22 { s = s[s.utf8.index(after: s.startIndex)...] }
        if s.utf8.last == 0x22 { s = s[..<s.utf8.index(before: s.endIndex)] }
        return s
    }

    /// Pieces between `separator` bytes (empty pieces kept).
    func utf8Split(_ separator: UInt8) -> [Substring] {
        var parts: [Substring] = []
        var start = utf8.startIndex
        var i = start
        while i < utf8.endIndex {
            if utf8[i] == separator {
                parts.append(self[start..<i])
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        parts.append(self[start...])
        return parts
    }
}

extension String {
    var trimmingSpacesString: String { String(self[...].trimmingSpaces) }
}
