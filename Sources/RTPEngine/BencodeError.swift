/// Why bytes are not one bencoded value, and where: `offset` is the index of the byte the reader stopped at.
public struct BencodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// The input ended inside a value (a string shorter than its length, a list without its `e`).
        case truncated
        /// A byte that cannot start a value (only `i`, `l`, `d` and digits can).
        case unexpectedByte(UInt8)
        /// An integer that is empty, has a leading zero, is `-0`, or holds something but digits.
        case badInteger
        /// An integer or string length beyond what fits in 64 bits.
        case tooLarge
        /// A string length with a leading zero or without its `:`.
        case badLength
        /// A dictionary key that is not a byte string, or not UTF-8.
        case badKey
        /// A dictionary key given twice.
        case duplicateKey(String)
        /// A dictionary key not greater than the one before it, when the decoder is strict about order (bencode
        /// sorts keys; rtpengine writes them in the order it added them, so the ng client is not strict).
        case unsortedKey(String)
        /// Lists and dictionaries nested deeper than the decoder allows.
        case tooDeep(Int)
        /// Bytes after the one complete value.
        case trailingBytes
    }

    public let offset: Int
    public let problem: Problem

    public init(offset: Int, problem: Problem) {
        self.offset = offset
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .truncated: what = "the input ends inside a value"
        case .unexpectedByte(let byte): what = "byte 0x\(String(byte, radix: 16)) cannot start a value"
        case .badInteger: what = "a malformed integer (digits only, no leading zero, no -0)"
        case .tooLarge: what = "a number too large for 64 bits"
        case .badLength: what = "a malformed string length (digits, no leading zero, then ':')"
        case .badKey: what = "a dictionary key that is not a UTF-8 byte string"
        case .duplicateKey(let key): what = "dictionary key '\(key)' is repeated"
        case .unsortedKey(let key): what = "dictionary key '\(key)' is out of order"
        case .tooDeep(let limit): what = "lists and dictionaries nested deeper than \(limit)"
        case .trailingBytes: what = "bytes after the end of the value"
        }
        return "bencode at offset \(offset): \(what)"
    }
}
