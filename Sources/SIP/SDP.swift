/// The minimal SDP (RFC 4566) offer/answer (RFC 3264) a load-testing UA needs: one audio stream, PCMU/PCMA, and
/// the direction attribute that hold and resume turn on (`sendonly` to hold, `sendrecv` to resume, §8.4).
public struct SDPSession: Sendable, Equatable {
    public enum Direction: String, Sendable {
        case sendrecv, sendonly, recvonly, inactive

        /// What the answerer puts against an offer with this direction (RFC 3264 §6.1).
        public var answer: Direction {
            switch self {
            case .sendrecv: return .sendrecv
            case .sendonly: return .recvonly
            case .recvonly: return .sendonly
            case .inactive: return .inactive
            }
        }
    }

    public var address: String
    public var port: Int
    /// RTP/AVP payload types offered (0 PCMU, 8 PCMA).
    public var formats: [Int]
    public var direction: Direction
    /// The o= line's session version, raised on every new offer in a dialog (§8).
    public var version: UInt64

    public init(address: String, port: Int, formats: [Int] = [0, 8], direction: Direction = .sendrecv,
                version: UInt64 = 1) {
        self.address = address
        self.port = port
        self.formats = formats
        self.direction = direction
        self.version = version
    }

    /// The answer to `offer` from a UA at `address`:`port`: the offer's formats it supports (PCMU, PCMA), the
    /// answering direction; nil when nothing is common (the UA answers 488).
    public static func answer(to offer: SDPSession, address: String, port: Int, version: UInt64 = 1) -> SDPSession? {
        let common = offer.formats.filter { $0 == 0 || $0 == 8 }
        guard !common.isEmpty else { return nil }
        return SDPSession(address: address, port: port, formats: common, direction: offer.direction.answer,
                          version: version)
    }

    /// Reads the first audio stream; nil when there is none (or no connection address).
    public init?(parsing body: [UInt8]) {
        // ASCII bodies (every real one) are read over their bytes; others keep the Character-based reading,
        // whose prefix tests see combining marks.
        guard let parsed = body.withUnsafeBufferPointer(ValueBytes.isASCII) ? Self.asciiParts(body)
                : Self.textParts(body),
              let address = parsed.address, let port = parsed.port else { return nil }
        self.init(address: address, port: port, formats: parsed.formats, direction: parsed.direction,
                  version: parsed.version)
    }

    private typealias Parts = (address: String?, port: Int?, formats: [Int], direction: Direction, version: UInt64)

    /// What `textParts` reads, over the bytes (each Substring step there costs tens of instructions); numbers are
    /// read as digits where they stand, only the address becomes a `String`.
    private static func asciiParts(_ body: [UInt8]) -> Parts? {
        var parts: Parts = (nil, nil, [], .sendrecv, 0)
        var inAudio = false
        body.withUnsafeBufferPointer { b in
            /// The `index`th space-separated field of `lo..<hi` (fields may be empty, as `utf8Split` keeps them).
            func field(_ index: Int, _ lo: Int, _ hi: Int) -> (Int, Int)? {
                var start = lo, k = 0
                while true {
                    let end = ValueBytes.find(0x20, b, start, hi)
                    if k == index { return (start, end) }
                    guard end < hi else { return nil }
                    start = end + 1
                    k += 1
                }
            }
            /// What `UInt64(text)` and `Int(text)` read: digits after an optional sign, in range.
            func digits(_ f: (Int, Int)) -> (negative: Bool, magnitude: UInt64)? {
                var lo = f.0
                let negative = lo < f.1 && b[lo] == 0x2D
                if lo < f.1, b[lo] == 0x2B || b[lo] == 0x2D { lo += 1 }
                guard f.1 > lo else { return nil }
                var value: UInt64 = 0
                for i in lo..<f.1 {
                    guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                    let (times, o1) = value.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times.addingReportingOverflow(UInt64(b[i] - 0x30))
                    guard !o1, !o2 else { return nil }
                    value = sum
                }
                return (negative, value)
            }
            func number(_ f: (Int, Int)) -> UInt64? {
                guard let (negative, value) = digits(f), !negative || value == 0 else { return nil }
                return value
            }
            func int(_ f: (Int, Int)) -> Int? {
                guard let (negative, value) = digits(f) else { return nil }
                if negative { return value <= UInt64(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- value) : nil }
                return value <= UInt64(Int.max) ? Int(value) : nil
            }
            var start = 0
            while start <= b.count {
                let newline = ValueBytes.findByte(0x0A, b, start, b.count)
                defer { start = newline + 1 }
                let end = newline > start && b[newline - 1] == 13 ? newline - 1 : newline
                guard end - start >= 2, b[start + 1] == 0x3D else { continue }
                switch b[start] {
                case 0x6F:  // o=
                    if let f = field(2, start + 2, end) { parts.version = number(f) ?? 0 }
                case 0x63:  // c=
                    if parts.address == nil || inAudio {
                        var last = start
                        for i in start..<end where b[i] == 0x20 { last = i + 1 }
                        parts.address = ValueBytes.string(b, last, end)
                    }
                case 0x6D:  // m=
                    guard parts.port == nil else { inAudio = false; continue }
                    let media = field(0, start + 2, end)!
                    inAudio = same(b, media.0, media.1, "audio") && field(3, start + 2, end) != nil
                    if inAudio {
                        parts.port = field(1, start + 2, end).flatMap(int)
                        parts.formats.reserveCapacity(4)
                        var k = 3
                        while let f = field(k, start + 2, end) {
                            if let format = int(f) { parts.formats.append(format) }
                            k += 1
                        }
                    }
                case 0x61 where inAudio:  // a=
                    if let found = direction(b, start + 2, end) { parts.direction = found }
                default:
                    break
                }
            }
        }
        return parts
    }

    /// Whether `lo..<hi` is `text`, byte for byte (as `String ==` compares ASCII).
    private static func same(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int, _ text: StaticString) -> Bool {
        guard hi - lo == text.utf8CodeUnitCount else { return false }
        for k in 0..<(hi - lo) where b[lo + k] != text.utf8Start[k] { return false }
        return true
    }

    /// `Direction(rawValue:)` of `lo..<hi`, compared as bytes.
    private static func direction(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> Direction? {
        same(b, lo, hi, "sendrecv") ? .sendrecv : same(b, lo, hi, "sendonly") ? .sendonly
            : same(b, lo, hi, "recvonly") ? .recvonly : same(b, lo, hi, "inactive") ? .inactive : nil
    }

    private static func textParts(_ body: [UInt8]) -> Parts? {
        var address: String?
        var port: Int?
        var formats: [Int] = []
        var direction = Direction.sendrecv
        var version: UInt64 = 0
        let text = String(decoding: body, as: UTF8.self)
        var inAudio = false
        for rawLine in text[...].utf8Split(0x0A) {
            var line = rawLine
            if line.utf8.last == 13 { line = line.dropLast() }
            if line.hasPrefix("o=") {
                let fields = line.dropFirst(2).utf8Split(0x20)
                if fields.count >= 3 { version = UInt64(fields[2]) ?? 0 }
            } else if line.hasPrefix("c=") {
                if let last = line.utf8Split(0x20).last, address == nil || inAudio { address = String(last) }
            } else if line.hasPrefix("m=") {
                guard port == nil else { inAudio = false; continue }
                let fields = line.dropFirst(2).utf8Split(0x20)
                inAudio = fields.first == "audio" && fields.count >= 4
                if inAudio {
                    port = Int(fields[1])
                    formats = fields.dropFirst(3).compactMap { Int($0) }
                }
            } else if inAudio, line.hasPrefix("a="), let found = Direction(rawValue: String(line.dropFirst(2))) {
                direction = found
            }
        }
        return (address, port, formats, direction, version)
    }

    /// The body, CRLF line ends, written as bytes (string interpolation cost ~15 k instructions a body), through a
    /// pointer into the array's room (`Array.append(contentsOf:)` cost ~130 instructions for each of its ~20
    /// pieces; issue 33).
    public var body: [UInt8] {
        var address = address
        return address.withUTF8 { a in
            // Every piece's longest: the fixed text ~110 bytes, the address twice, 20 digits for each number, and
            // 30 bytes for each format (its number and its rtpmap line).
            let room = 128 + 2 * a.count + 40 + 30 * formats.count + 16
            return [UInt8](room: room) { out in
                var w = RoomWriter(out)
                w.put("v=0\r\no=- 1 ")
                w.put(decimal: version)
                w.put(" IN IP4 ")
                w.put(a)
                w.put("\r\ns=callstorm\r\nc=IN IP4 ")
                w.put(a)
                w.put("\r\nt=0 0\r\nm=audio ")
                w.put(decimal: port)
                w.put(" RTP/AVP")
                for format in formats {
                    w.put(byte: 0x20)
                    w.put(decimal: format)
                }
                w.put("\r\n")
                for format in formats {
                    if format == 0 {
                        w.put("a=rtpmap:0 PCMU/8000\r\n")
                    } else if format == 8 {
                        w.put("a=rtpmap:8 PCMA/8000\r\n")
                    }
                }
                w.put("a=")
                switch direction {
                case .sendrecv: w.put("sendrecv")
                case .sendonly: w.put("sendonly")
                case .recvonly: w.put("recvonly")
                case .inactive: w.put("inactive")
                }
                w.put("\r\n")
                return w.n
            }
        }
    }
}
