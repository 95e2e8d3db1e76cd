#if canImport(Glibc)
import Glibc
#endif

/// MD5 (RFC 1321), for SIP digest authentication only (RFC 2617 / 7616 MD5), where the algorithm is fixed by the
/// server. Small and dependency-free so the value module needs no OpenSSL; tested against RFC 1321's vectors.
public enum MD5 {
    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    /// floor(abs(sin(i + 1)) * 2^32), the per-step constants.
    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296.0).rounded(.down)))
    }

    public static func digest(_ message: [UInt8]) -> [UInt8] {
        let state = words(message)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for word in [state.0, state.1, state.2, state.3] {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) }
        }
        return out
    }

    /// The digest's lowercase hex (32 digits) appended to `out`: what a digest answer hashes and sends, without
    /// the digest's own array or a `String` (issue 33: three of them on every wake's REGISTER answer).
    public static func appendHex(of message: [UInt8], to out: inout [UInt8]) {
        let state = words(message)
        out.reserveCapacity(out.count + 32)
        func put(_ word: UInt32) {
            for i in 0..<4 {
                let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
        }
        put(state.0)
        put(state.1)
        put(state.2)
        put(state.3)
    }

    /// The lowercase hex digit of `nibble` (0-15).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// The four state words after hashing `message` (the digest is their bytes, little-endian).
    private static func words(_ message: [UInt8]) -> (UInt32, UInt32, UInt32, UInt32) {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
        message.withUnsafeBufferPointer { m in
            constants.withUnsafeBufferPointer { k in
                shifts.withUnsafeBufferPointer { s in
                    let full = m.count / 64
                    for block in 0..<full {
                        compress(&state, UnsafeRawPointer(m.baseAddress! + block * 64), k, s)
                    }
                    // The rest, 0x80, zeros and the length in bits: one block, or two when the rest leaves no room.
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                        let rest = m.count - full * 64
                        let total = rest + 9 <= 64 ? 64 : 128
                        for i in 0..<rest { tail[i] = m[full * 64 + i] }
                        tail[rest] = 0x80
                        for i in (rest + 1)..<(total - 8) { tail[i] = 0 }
                        let bits = UInt64(m.count) &* 8
                        for i in 0..<8 { tail[total - 8 + i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i))) }
                        let base = UnsafeRawPointer(tail.baseAddress!)
                        compress(&state, base, k, s)
                        if total == 128 { compress(&state, base + 64, k, s) }
                    }
                }
            }
        }
        return state
    }

    /// One 64-byte block into `state`, its words read little-endian where they lie (no copy of the message:
    /// a digest answer hashes three short texts per REGISTER, on every wake of a sleeping device).
    @inline(__always)
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32), _ p: UnsafeRawPointer,
                                 _ k: UnsafeBufferPointer<UInt32>, _ s: UnsafeBufferPointer<UInt32>) {
        var (a, b, c, d) = state
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) & 15
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) & 15
            default: f = c ^ (b | ~d); g = (7 * i) & 15
            }
            f = f &+ a &+ k[i] &+ UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * g, as: UInt32.self))
            a = d
            d = c
            c = b
            let shift = s[i]
            b = b &+ (f << shift | f >> (32 - shift))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    /// Lowercase hex of the digest, the form digest authentication hashes and sends.
    public static func hex(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        appendHex(of: Array(text.utf8), to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
