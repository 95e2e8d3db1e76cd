/// MD5 (RFC 1321), for SIP digest authentication only (RFC 2617 / 7616 MD5), where the algorithm is fixed by the
/// server. Small and dependency-free so the value module needs no OpenSSL; tested against RFC 1321's vectors.
public enum MD5 {
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
        // The 32 digits laid out in place and appended at once: an `append` per digit checked the capacity 32
        // times (~870 instructions a digest; issue 33).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
            func put(_ word: UInt32, at n: Int) {
                for i in 0..<4 {
                    let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))
                    digits[n + 2 * i] = hexDigit(byte >> 4)
                    digits[n + 2 * i + 1] = hexDigit(byte & 0xF)
                }
            }
            put(state.0, at: 0)
            put(state.1, at: 8)
            put(state.2, at: 16)
            put(state.3, at: 24)
            out.append(contentsOf: UnsafeBufferPointer(digits))
        }
    }

    /// The lowercase hex digit of `nibble` (0-15).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// The four state words after hashing `message` (the digest is their bytes, little-endian).
    private static func words(_ message: [UInt8]) -> (UInt32, UInt32, UInt32, UInt32) {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
        message.withUnsafeBufferPointer { m in
            let full = m.count / 64
            for block in 0..<full {
                compress(&state, UnsafeRawPointer(m.baseAddress! + block * 64))
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
                compress(&state, base)
                if total == 128 { compress(&state, base + 64) }
            }
        }
        return state
    }

    /// One 64-byte block into `state`, its words read little-endian where they lie (no copy of the message:
    /// a digest answer hashes three short texts per REGISTER, on every wake of a sleeping device). The 64 steps
    /// written out with their constants (RFC 1321 section 3.4): the loop over tables with a switch per step cost
    /// ~2,800 instructions a block, ten blocks a wake call (issue 33).
    @inline(__always)
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32), _ p: UnsafeRawPointer) {
        var (a, b, c, d) = state
        firstHalf(&a, &b, &c, &d, p)
        secondHalf(&a, &b, &c, &d, p)
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    /// Rounds 1 and 2 (F and G).
    @inline(__always)
    private static func firstHalf(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
                                  _ p: UnsafeRawPointer) {
        f(&a, b, c, d, w(p, 0), 0xd76a_a478, 7)
        f(&d, a, b, c, w(p, 1), 0xe8c7_b756, 12)
        f(&c, d, a, b, w(p, 2), 0x2420_70db, 17)
        f(&b, c, d, a, w(p, 3), 0xc1bd_ceee, 22)
        f(&a, b, c, d, w(p, 4), 0xf57c_0faf, 7)
        f(&d, a, b, c, w(p, 5), 0x4787_c62a, 12)
        f(&c, d, a, b, w(p, 6), 0xa830_4613, 17)
        f(&b, c, d, a, w(p, 7), 0xfd46_9501, 22)
        f(&a, b, c, d, w(p, 8), 0x6980_98d8, 7)
        f(&d, a, b, c, w(p, 9), 0x8b44_f7af, 12)
        f(&c, d, a, b, w(p, 10), 0xffff_5bb1, 17)
        f(&b, c, d, a, w(p, 11), 0x895c_d7be, 22)
        f(&a, b, c, d, w(p, 12), 0x6b90_1122, 7)
        f(&d, a, b, c, w(p, 13), 0xfd98_7193, 12)
        f(&c, d, a, b, w(p, 14), 0xa679_438e, 17)
        f(&b, c, d, a, w(p, 15), 0x49b4_0821, 22)
        g(&a, b, c, d, w(p, 1), 0xf61e_2562, 5)
        g(&d, a, b, c, w(p, 6), 0xc040_b340, 9)
        g(&c, d, a, b, w(p, 11), 0x265e_5a51, 14)
        g(&b, c, d, a, w(p, 0), 0xe9b6_c7aa, 20)
        g(&a, b, c, d, w(p, 5), 0xd62f_105d, 5)
        g(&d, a, b, c, w(p, 10), 0x0244_1453, 9)
        g(&c, d, a, b, w(p, 15), 0xd8a1_e681, 14)
        g(&b, c, d, a, w(p, 4), 0xe7d3_fbc8, 20)
        g(&a, b, c, d, w(p, 9), 0x21e1_cde6, 5)
        g(&d, a, b, c, w(p, 14), 0xc337_07d6, 9)
        g(&c, d, a, b, w(p, 3), 0xf4d5_0d87, 14)
        g(&b, c, d, a, w(p, 8), 0x455a_14ed, 20)
        g(&a, b, c, d, w(p, 13), 0xa9e3_e905, 5)
        g(&d, a, b, c, w(p, 2), 0xfcef_a3f8, 9)
        g(&c, d, a, b, w(p, 7), 0x676f_02d9, 14)
        g(&b, c, d, a, w(p, 12), 0x8d2a_4c8a, 20)
    }

    /// Rounds 3 and 4 (H and I).
    @inline(__always)
    private static func secondHalf(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
                                   _ p: UnsafeRawPointer) {
        h(&a, b, c, d, w(p, 5), 0xfffa_3942, 4)
        h(&d, a, b, c, w(p, 8), 0x8771_f681, 11)
        h(&c, d, a, b, w(p, 11), 0x6d9d_6122, 16)
        h(&b, c, d, a, w(p, 14), 0xfde5_380c, 23)
        h(&a, b, c, d, w(p, 1), 0xa4be_ea44, 4)
        h(&d, a, b, c, w(p, 4), 0x4bde_cfa9, 11)
        h(&c, d, a, b, w(p, 7), 0xf6bb_4b60, 16)
        h(&b, c, d, a, w(p, 10), 0xbebf_bc70, 23)
        h(&a, b, c, d, w(p, 13), 0x289b_7ec6, 4)
        h(&d, a, b, c, w(p, 0), 0xeaa1_27fa, 11)
        h(&c, d, a, b, w(p, 3), 0xd4ef_3085, 16)
        h(&b, c, d, a, w(p, 6), 0x0488_1d05, 23)
        h(&a, b, c, d, w(p, 9), 0xd9d4_d039, 4)
        h(&d, a, b, c, w(p, 12), 0xe6db_99e5, 11)
        h(&c, d, a, b, w(p, 15), 0x1fa2_7cf8, 16)
        h(&b, c, d, a, w(p, 2), 0xc4ac_5665, 23)
        i(&a, b, c, d, w(p, 0), 0xf429_2244, 6)
        i(&d, a, b, c, w(p, 7), 0x432a_ff97, 10)
        i(&c, d, a, b, w(p, 14), 0xab94_23a7, 15)
        i(&b, c, d, a, w(p, 5), 0xfc93_a039, 21)
        i(&a, b, c, d, w(p, 12), 0x655b_59c3, 6)
        i(&d, a, b, c, w(p, 3), 0x8f0c_cc92, 10)
        i(&c, d, a, b, w(p, 10), 0xffef_f47d, 15)
        i(&b, c, d, a, w(p, 1), 0x8584_5dd1, 21)
        i(&a, b, c, d, w(p, 8), 0x6fa8_7e4f, 6)
        i(&d, a, b, c, w(p, 15), 0xfe2c_e6e0, 10)
        i(&c, d, a, b, w(p, 6), 0xa301_4314, 15)
        i(&b, c, d, a, w(p, 13), 0x4e08_11a1, 21)
        i(&a, b, c, d, w(p, 4), 0xf753_7e82, 6)
        i(&d, a, b, c, w(p, 11), 0xbd3a_f235, 10)
        i(&c, d, a, b, w(p, 2), 0x2ad7_d2bb, 15)
        i(&b, c, d, a, w(p, 9), 0xeb86_d391, 21)
    }

    /// Word `i` of the block, little-endian.
    @inline(__always)
    private static func w(_ p: UnsafeRawPointer, _ i: Int) -> UInt32 {
        UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
    }

    /// One step: `a = b + ((a + fn(b, c, d) + x + k) <<< s)`, with each round's fn.
    @inline(__always)
    private static func f(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ k: UInt32,
                          _ s: UInt32) {
        step(&a, b, (b & c) | (~b & d), x, k, s)
    }

    @inline(__always)
    private static func g(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ k: UInt32,
                          _ s: UInt32) {
        step(&a, b, (d & b) | (~d & c), x, k, s)
    }

    @inline(__always)
    private static func h(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ k: UInt32,
                          _ s: UInt32) {
        step(&a, b, b ^ c ^ d, x, k, s)
    }

    @inline(__always)
    private static func i(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ k: UInt32,
                          _ s: UInt32) {
        step(&a, b, c ^ (b | ~d), x, k, s)
    }

    @inline(__always)
    private static func step(_ a: inout UInt32, _ b: UInt32, _ f: UInt32, _ x: UInt32, _ k: UInt32, _ s: UInt32) {
        let t = a &+ f &+ x &+ k
        a = b &+ (t &<< s | t &>> (32 &- s))
    }

    /// Lowercase hex of the digest, the form digest authentication hashes and sends.
    public static func hex(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        appendHex(of: Array(text.utf8), to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
