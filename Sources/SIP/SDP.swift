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
        guard let parsed = body.allSatisfy({ $0 < 0x80 }) ? Self.asciiParts(body) : Self.textParts(body),
              let address = parsed.address, let port = parsed.port else { return nil }
        self.init(address: address, port: port, formats: parsed.formats, direction: parsed.direction,
                  version: parsed.version)
    }

    private typealias Parts = (address: String?, port: Int?, formats: [Int], direction: Direction, version: UInt64)

    /// What `textParts` reads, over the bytes (each Substring step there costs tens of instructions).
    private static func asciiParts(_ body: [UInt8]) -> Parts? {
        var parts: Parts = (nil, nil, [], .sendrecv, 0)
        var inAudio = false
        body.withUnsafeBufferPointer { b in
            func fields(_ lo: Int, _ hi: Int) -> [(Int, Int)] {
                var out: [(Int, Int)] = []
                var start = lo
                while true {
                    let end = ValueBytes.find(0x20, b, start, hi)
                    out.append((start, end))
                    guard end < hi else { return out }
                    start = end + 1
                }
            }
            func text(_ f: (Int, Int)) -> String { ValueBytes.string(b, f.0, f.1) }
            var start = 0
            while start <= b.count {
                let newline = ValueBytes.find(0x0A, b, start, b.count)
                defer { start = newline + 1 }
                let end = newline > start && b[newline - 1] == 13 ? newline - 1 : newline
                guard end - start >= 2, b[start + 1] == 0x3D else { continue }
                switch b[start] {
                case 0x6F:  // o=
                    let f = fields(start + 2, end)
                    if f.count >= 3 { parts.version = UInt64(text(f[2])) ?? 0 }
                case 0x63:  // c=
                    if parts.address == nil || inAudio { parts.address = text(fields(start, end).last!) }
                case 0x6D:  // m=
                    guard parts.port == nil else { inAudio = false; continue }
                    let f = fields(start + 2, end)
                    inAudio = text(f[0]) == "audio" && f.count >= 4
                    if inAudio {
                        parts.port = Int(text(f[1]))
                        parts.formats = f.dropFirst(3).compactMap { Int(text($0)) }
                    }
                case 0x61 where inAudio:  // a=
                    if let found = Direction(rawValue: text((start + 2, end))) { parts.direction = found }
                default:
                    break
                }
            }
        }
        return parts
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

    /// The body, CRLF line ends.
    public var body: [UInt8] {
        let list = formats.map(String.init).joined(separator: " ")
        var text = "v=0\r\no=- 1 \(version) IN IP4 \(address)\r\ns=callstorm\r\nc=IN IP4 \(address)\r\nt=0 0\r\n"
        text += "m=audio \(port) RTP/AVP \(list)\r\n"
        for format in formats {
            text += format == 0 ? "a=rtpmap:0 PCMU/8000\r\n" : format == 8 ? "a=rtpmap:8 PCMA/8000\r\n" : ""
        }
        text += "a=\(direction.rawValue)\r\n"
        return Array(text.utf8)
    }
}
