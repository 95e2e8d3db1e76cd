/// One ng protocol datagram: a cookie (no spaces), one space, one bencoded dictionary. The answer to a request
/// carries the request's cookie, which is how a client pairs them and how rtpengine recognises a retransmission
/// (it answers a cookie it has seen again from its cache instead of acting twice).
public struct NGMessage: Equatable, Sendable {
    public var cookie: String
    public var body: [String: Bencode]

    public init(cookie: String, body: [String: Bencode]) {
        self.cookie = cookie
        self.body = body
    }

    /// The datagram's bytes.
    public var encoded: [UInt8] {
        var out = Array(cookie.utf8)
        out.append(UInt8(ascii: " "))
        Bencode.dictionary(body).append(to: &out)
        return out
    }

    /// Reads a datagram; a missing space, an empty cookie or a body that is not one dictionary is an error whose
    /// offset counts from the datagram's first byte.
    public static func decode(_ datagram: [UInt8], decoder: BencodeDecoder = BencodeDecoder()) throws -> NGMessage {
        guard let space = datagram.firstIndex(of: UInt8(ascii: " ")) else {
            throw BencodeError(offset: datagram.count, problem: .truncated)
        }
        guard space > 0 else { throw BencodeError(offset: 0, problem: .unexpectedByte(UInt8(ascii: " "))) }
        let value: Bencode
        do {
            value = try datagram.withUnsafeBufferPointer { try decoder.decode($0[(space + 1)...]) }
        } catch let error as BencodeError {
            throw BencodeError(offset: error.offset + space + 1, problem: error.problem)
        }
        guard case .dictionary(let body) = value else {
            throw BencodeError(offset: space + 1, problem: .unexpectedByte(datagram[space + 1]))
        }
        return NGMessage(cookie: String(decoding: datagram[..<space], as: UTF8.self), body: body)
    }
}
