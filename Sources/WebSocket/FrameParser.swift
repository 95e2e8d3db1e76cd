import Bytes

/// Cuts frames out of a byte stream that arrives in arbitrary chunks, checking every rule a single frame can
/// break (§5.2, §5.5) as soon as its header is complete, so an oversize or malformed frame is refused before
/// its payload is buffered.
///
/// Memory: an idle parser holds no buffer (the array is released once everything buffered was consumed),
/// which matters at tens of thousands of open sockets. Not thread-safe; one per connection.
public struct FrameParser: Sendable {
    /// The end this parser receives for: a client's parser rejects masked frames, a server's unmasked ones.
    public let role: Role
    /// The largest payload one frame may announce.
    public let maxFrameBytes: Int
    /// Bytes received and not yet cut into frames; emptied (holding no buffer) whenever all were.
    private var buffer = ByteQueue()

    public init(role: Role, maxFrameBytes: Int = 1 << 20) {
        self.role = role
        self.maxFrameBytes = maxFrameBytes
    }

    /// Bytes received and not yet returned as frames.
    public var bufferedBytes: Int { buffer.count }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole frame, nil when more bytes are needed. After a throw the stream is unusable: the
    /// caller fails the connection with the error's close code.
    public mutating func next() throws(FrameError) -> Frame? {
        let available = buffer.count
        guard available >= 2 else { return nil }
        let header = try buffer.withReadableBuffer { readable throws(FrameError) -> Header? in
            try Self.header(readable, role: role, maxFrameBytes: maxFrameBytes)
        }
        guard let (headerLength, payloadLength, mask, fin, opcode) = header else { return nil }
        guard available >= headerLength + payloadLength else { return nil }
        var payload = buffer.copyBytes(at: headerLength, count: payloadLength)
        if let mask {
            let key = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
            payload.withUnsafeMutableBufferPointer { p in
                for i in 0..<p.count { p[i] ^= key[i & 3] }
            }
        }
        // An idle socket keeps no buffer: at tens of thousands of sockets that beats reusing one.
        buffer.consume(headerLength + payloadLength, keepingCapacityUpTo: 0, compactingAt: 64 * 1024)
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    /// (header bytes, payload bytes, mask key, FIN, opcode).
    private typealias Header = (Int, Int, UInt32?, Bool, Opcode)

    /// Decodes and checks a frame header: (header bytes, payload bytes, mask key, FIN, opcode), or nil when the
    /// header is not complete yet.
    private static func header(_ bytes: UnsafeBufferPointer<UInt8>, role: Role, maxFrameBytes: Int)
        throws(FrameError) -> Header? {
        let b0 = bytes[0], b1 = bytes[1]
        let fin = b0 & 0x80 != 0
        let rsv = (b0 >> 4) & 0x7
        guard rsv == 0 else { throw .reservedBitsSet(rsv) }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else { throw .unknownOpcode(b0 & 0x0F) }
        let masked = b1 & 0x80 != 0
        switch role {
        case .client where masked: throw .maskedFrameFromServer
        case .server where !masked: throw .unmaskedFrameFromClient
        default: break
        }
        let short = Int(b1 & 0x7F)
        if opcode.isControl {
            guard fin else { throw .fragmentedControlFrame }
            guard short <= 125 else { throw .controlFrameTooLong(short) }
        }
        var length = short
        var offset = 2
        if short == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if short == 127 {
            guard bytes.count >= 10 else { return nil }
            var value: UInt64 = 0
            for i in 2..<10 { value = value << 8 | UInt64(bytes[i]) }
            guard value >> 63 == 0 else { throw .invalidLength }
            guard value <= UInt64(maxFrameBytes) else { throw .messageTooBig(limit: maxFrameBytes) }
            length = Int(value)
            offset = 10
        }
        guard length <= maxFrameBytes else { throw .messageTooBig(limit: maxFrameBytes) }
        var mask: UInt32?
        if masked {
            guard bytes.count >= offset + 4 else { return nil }
            mask = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            offset += 4
        }
        return (offset, length, mask, fin, opcode)
    }
}
