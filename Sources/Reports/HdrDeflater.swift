import CZlib

/// The zlib stream of one small `.hlog` interval (a few dozen bytes: the V2 encoding of one metric's second),
/// written by hand as one deflate block of literals with the fixed Huffman codes (RFC 1951 §3.2.6), or stored when
/// that is shorter, behind a zlib header and Adler-32 (RFC 1950). Any inflater reads it: zlib, HdrHistogram's Java
/// `Inflater`, Python's `zlib` under `hdrh`.
///
/// Why not zlib's `deflate`: on inputs this small it compressed ~50 bytes to ~41 and spent ~33 k instructions a
/// stream (its hash table cleared and block set up per stream, even with `deflateReset` and `memLevel` 4): one
/// interval per latency metric per second of the run, ~65 k instructions per SIP call at the bench's 20 calls/s
/// (issue 33). This encoder costs a few instructions a byte; an interval line grows by ~15 bytes of base64.
///
/// A class so that a report's intervals can share one (the API of the zlib stream it replaced); it keeps nothing
/// between intervals, so a shared one writes the bytes a fresh one writes.
public final class HdrDeflater {
    public init() {}

    /// Writes the zlib stream of `source` into `target`, its length in `length`. `target` must hold
    /// `compressBound(source.count)` bytes (stored is `source.count + 11`, within it); `Z_BUF_ERROR` when it does
    /// not, or when `source` is longer than one stored block.
    func deflate(_ source: UnsafeBufferPointer<UInt8>, into target: UnsafeMutableBufferPointer<UInt8>,
                 length: inout uLong) -> Int32 {
        let count = source.count
        var nineBitLiterals = 0
        for byte in source where byte >= 144 { nineBitLiterals += 1 }
        // 2 header bytes, 3 block-header bits, 8 or 9 bits a literal, 7 bits of end of block, 4 bytes of Adler-32.
        let fixedBytes = 2 + (3 + 8 * count + nineBitLiterals + 7 + 7) / 8 + 4
        let storedBytes = count + 11
        guard count <= 0xFFFF, min(fixedBytes, storedBytes) <= target.count, let out = target.baseAddress else {
            return Z_BUF_ERROR
        }
        out[0] = 0x78  // deflate, 32 KB window
        out[1] = 0x01  // no dictionary, fastest level; 0x7801 is a multiple of 31
        var at = 2
        if fixedBytes <= storedBytes {
            at = Self.writeFixedBlock(source, to: out, at: at)
        } else {
            out[at] = 0x01  // BFINAL 1, BTYPE 00, padded
            out[at + 1] = UInt8(truncatingIfNeeded: count)
            out[at + 2] = UInt8(truncatingIfNeeded: count >> 8)
            out[at + 3] = ~out[at + 1]
            out[at + 4] = ~out[at + 2]
            at += 5
            if count > 0 { (out + at).update(from: source.baseAddress!, count: count) }
            at += count
        }
        let checksum = adler32(1, source.baseAddress, uInt(count))
        for shift in stride(from: 24, through: 0, by: -8) {
            out[at] = UInt8(truncatingIfNeeded: checksum >> uLong(shift))
            at += 1
        }
        length = uLong(at)
        return Z_OK
    }

    /// BFINAL 1, BTYPE 01, every byte a literal, end of block, padded to a byte; returns the index after it.
    private static func writeFixedBlock(_ source: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>,
                                        at start: Int) -> Int {
        var at = start
        var bits: UInt64 = 0b011  // BFINAL 1, then BTYPE 01 least significant bit first
        var pending = 3
        for byte in source {
            let code = literalCodes[Int(byte)]
            bits |= UInt64(code & 0x1FF) << UInt64(pending)
            pending += Int(code >> 9)
            while pending >= 8 {
                out[at] = UInt8(truncatingIfNeeded: bits)
                at += 1
                bits >>= 8
                pending -= 8
            }
        }
        pending += 7  // end of block: seven zero bits
        while pending > 0 {
            out[at] = UInt8(truncatingIfNeeded: bits)
            at += 1
            bits >>= 8
            pending -= 8
        }
        return at
    }

    /// Each literal's fixed Huffman code, bit-reversed for the least-significant-first stream, in the low 9 bits,
    /// and its length (8 or 9) above them.
    private static let literalCodes: [UInt16] = (0..<256).map { literal in
        let (code, width) = literal < 144 ? (0x30 + literal, 8) : (0x190 + literal - 144, 9)
        var reversed = 0
        for bit in 0..<width where code & (1 << (width - 1 - bit)) != 0 { reversed |= 1 << bit }
        return UInt16(reversed | width << 9)
    }
}
