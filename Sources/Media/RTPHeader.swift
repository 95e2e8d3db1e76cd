/// An RTP fixed header with its CSRC list and header extension (RFC 3550 §5.1, §5.3.1), read from and written to
/// bytes. Version is always 2; the payload is not part of the value (`RTPHeader.parse` returns where it is).
public struct RTPHeader: Sendable, Equatable {
    public static let version: UInt8 = 2
    public static let fixedSize = 12

    /// Padding bytes at the end of the packet (0: the P bit is clear). The last padding byte holds this count.
    public var padding: Int
    public var marker: Bool
    /// 7 bits: 0 PCMU, 8 PCMA (RFC 3551).
    public var payloadType: UInt8
    public var sequence: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// At most 15 (the CC field is 4 bits).
    public var csrcs: [UInt32]
    public var headerExtension: RTPHeaderExtension?

    public init(payloadType: UInt8, sequence: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool = false,
                padding: Int = 0, csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil) {
        self.padding = padding
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequence = sequence
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = Array(csrcs.prefix(15))
        self.headerExtension = headerExtension
    }

    /// Bytes of the header as written: fixed part, CSRCs, extension.
    public var byteCount: Int { Self.fixedSize + 4 * csrcs.count + (headerExtension.map { 4 + $0.data.count } ?? 0) }

    /// Reads the header of `bytes` and where the payload lies (padding excluded), or the reason it is not RTP.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPParseError)
        -> (header: RTPHeader, payload: Range<Int>) {
        let length = bytes.count
        guard length >= fixedSize else { throw .shorterThanHeader(length: length) }
        let first = bytes[0]
        guard first >> 6 == version else { throw .wrongVersion(first >> 6) }
        let csrcCount = Int(first & 0x0F)
        var offset = fixedSize + 4 * csrcCount
        guard offset <= length else { throw .csrcListBeyondEnd(csrcCount: csrcCount, length: length) }
        var header = RTPHeader(payloadType: bytes[1] & 0x7F, sequence: UInt16(be16(bytes, 2)),
                               timestamp: be32(bytes, 4), ssrc: be32(bytes, 8), marker: bytes[1] & 0x80 != 0)
        header.csrcs = (0..<csrcCount).map { be32(bytes, fixedSize + 4 * $0) }
        if first & 0x10 != 0 {
            guard offset + 4 <= length else { throw .extensionBeyondEnd(extensionBytes: 4, length: length) }
            let words = Int(be16(bytes, offset + 2))
            let end = offset + 4 + 4 * words
            guard end <= length else { throw .extensionBeyondEnd(extensionBytes: 4 + 4 * words, length: length) }
            header.headerExtension = RTPHeaderExtension(profile: UInt16(be16(bytes, offset)),
                                                        data: Array(bytes[(offset + 4)..<end]))
            offset = end
        }
        var end = length
        if first & 0x20 != 0 {
            let count = Int(bytes[length - 1])
            guard count >= 1, count <= length - offset else {
                throw .paddingBeyondPayload(padding: count, available: length - offset)
            }
            header.padding = count
            end = length - count
        }
        return (header, offset..<end)
    }

    /// Appends the header to `out` (the payload and then `padding` bytes follow: see `RTPHeader.appendPadding`).
    public func write(into out: inout [UInt8]) {
        let flags = Self.version << 6 | (padding > 0 ? 0x20 : 0) | (headerExtension != nil ? 0x10 : 0)
            | UInt8(csrcs.count)
        out.append(flags)
        out.append((marker ? 0x80 : 0) | payloadType & 0x7F)
        appendBE16(&out, sequence)
        appendBE32(&out, timestamp)
        appendBE32(&out, ssrc)
        for csrc in csrcs { appendBE32(&out, csrc) }
        if let ext = headerExtension {
            appendBE16(&out, ext.profile)
            appendBE16(&out, UInt16(ext.data.count / 4))
            out.append(contentsOf: ext.data.prefix(ext.data.count / 4 * 4))
        }
    }

    /// Appends this header's `padding` bytes: zeros, then the count (RFC 3550 §5.1, P).
    public func appendPadding(into out: inout [UInt8]) {
        guard padding > 0 else { return }
        out.append(contentsOf: repeatElement(0, count: padding - 1))
        out.append(UInt8(truncatingIfNeeded: padding))
    }
}

/// The one header extension RFC 3550 allows (§5.3.1): a profile-defined 16 bits and whole 32-bit words of data.
public struct RTPHeaderExtension: Sendable, Equatable {
    public var profile: UInt16
    /// A multiple of 4 bytes (written truncated to one).
    public var data: [UInt8]

    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        self.data = data
    }
}

// MARK: - Network byte order

@inline(__always) func be16(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
    UInt32(b[i]) << 8 | UInt32(b[i + 1])
}

@inline(__always) func be32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
}

@inline(__always) func appendBE16(_ out: inout [UInt8], _ v: UInt16) {
    out.append(UInt8(v >> 8))
    out.append(UInt8(truncatingIfNeeded: v))
}

@inline(__always) func appendBE32(_ out: inout [UInt8], _ v: UInt32) {
    out.append(UInt8(v >> 24))
    out.append(UInt8(truncatingIfNeeded: v >> 16))
    out.append(UInt8(truncatingIfNeeded: v >> 8))
    out.append(UInt8(truncatingIfNeeded: v))
}
