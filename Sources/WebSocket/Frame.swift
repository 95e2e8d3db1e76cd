/// One frame as it came off the wire, its payload already unmasked.
public struct Frame: Equatable, Sendable {
    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }
}

/// Writes frames (RFC 6455 §5.2): the shortest length form (7-bit, 16-bit or 64-bit), and the payload masked
/// with `maskKey` when one is given, as a client must. A namespace of pure functions, safe on any thread.
public enum FrameEncoder {
    /// Appends one frame to `buffer`. `maskKey` nil sends the payload in the clear, as a server does.
    public static func append(_ opcode: Opcode, payload: UnsafeRawBufferPointer, fin: Bool = true,
                              maskKey: UInt32? = nil, to buffer: inout [UInt8]) {
        buffer.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        let count = payload.count
        if count < 126 {
            buffer.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            buffer.append(maskBit | 126)
            buffer.append(UInt8(count >> 8))
            buffer.append(UInt8(count & 0xFF))
        } else {
            buffer.append(maskBit | 127)
            appendBigEndian(UInt64(count), to: &buffer)
        }
        guard let maskKey else {
            buffer.append(contentsOf: payload)
            return
        }
        let key = [UInt8(maskKey >> 24), UInt8((maskKey >> 16) & 0xFF), UInt8((maskKey >> 8) & 0xFF),
                   UInt8(maskKey & 0xFF)]
        buffer.append(contentsOf: key)
        let start = buffer.count
        buffer.append(contentsOf: payload)
        buffer.withUnsafeMutableBufferPointer { all in
            for i in 0..<count { all[start + i] ^= key[i & 3] }
        }
    }

    /// `append` for an array payload.
    public static func append(_ opcode: Opcode, payload: [UInt8], fin: Bool = true, maskKey: UInt32? = nil,
                              to buffer: inout [UInt8]) {
        payload.withUnsafeBytes { append(opcode, payload: $0, fin: fin, maskKey: maskKey, to: &buffer) }
    }

    /// One whole frame as a new array.
    public static func frame(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true,
                             maskKey: UInt32? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        append(opcode, payload: payload, fin: fin, maskKey: maskKey, to: &out)
        return out
    }

    /// A close frame's payload: the code (big-endian) then the reason's UTF-8, cut so the whole stays within
    /// a control frame's 125 bytes (at a character boundary, so the reason stays valid UTF-8).
    public static func closePayload(_ code: CloseCode, reason: String = "") -> [UInt8] {
        var out: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if out.count + bytes.count > 125 { break }
            out.append(contentsOf: bytes)
        }
        return out
    }
}

/// Appends the 8 bytes of `value`, most significant first (network order, as lengths and keys go on the wire).
func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
    for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
}
