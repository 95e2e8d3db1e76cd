extension JSONText {
    /// Whether the `n` bytes at `source` need no JSON escape: no control byte (below 0x20), no `"` and no `\`.
    /// Eight bytes a step (`ByteWords`); the last one to seven bytes as one more word, the last eight loaded again
    /// when there are at least eight (`ByteWords.tail`). For writers that fill raw memory (the reference target's
    /// views, `ViewWriter`; history lines, `JSONLineWriter`): a byte loop was ~7 instructions a byte, and the tail's
    /// byte loop was most of what a history line's short texts (`dev-0`, `INVITE`) cost (issue 33, s52).
    @inlinable
    public static func isPlain(_ source: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        ByteWords.every(source, n, plainWord)
    }

    /// No byte of `w` below 0x20, `"` or `\`.
    @inlinable @inline(__always)
    static func plainWord(_ w: UInt64) -> Bool {
        (ByteWords.below(w, 0x20) | ByteWords.equal(w, 0x22) | ByteWords.equal(w, 0x5C)) == 0
    }
}

/// Eight bytes at a time as one `UInt64` (the first byte lowest), for the scans of run files' texts: the JSON and CSV
/// escape checks of the history and actions writers. The tests are exact for "is
/// there any": `(x - 0x01…01) & ~x & 0x80…80` flags every zero byte of `x`, and may flag a 0x01 byte above a zero one
/// (a borrow), never a byte below the first zero, so the lowest flag is exact too (`firstEqual`).
public enum ByteWords {
    public static let ones: UInt64 = 0x0101_0101_0101_0101
    public static let highs: UInt64 = 0x8080_8080_8080_8080
    /// The byte `tail` fills a short word's missing bytes with: a letter, none of the bytes any scan looks for.
    public static let pad: UInt64 = 0x6161_6161_6161_6161

    @inlinable @inline(__always)
    public static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `w` equal to `c` (and maybe of a 0x01-apart byte above one: see the type).
    @inlinable @inline(__always)
    public static func equal(_ w: UInt64, _ c: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(c))
        return (x &- ones) & ~x & highs
    }

    /// The high bit of each byte of `w` below `c` (`c` at most 0x80), exact for "is there any".
    @inlinable @inline(__always)
    public static func below(_ w: UInt64, _ c: UInt8) -> UInt64 {
        (w &- ones &* UInt64(c)) & ~w & highs
    }

    /// The bytes from `i` to `n` (1 to 8 of them, `i < n`) as one word without reading outside the `n` bytes: the
    /// last eight loaded again when `n` is at least 8 (bytes already scanned read twice, harmless for "is there
    /// any"), otherwise the bytes put together and the rest of the word `pad`.
    @inlinable @inline(__always)
    public static func tail(_ source: UnsafePointer<UInt8>, _ n: Int, from i: Int) -> UInt64 {
        n >= 8 ? load(source + (n &- 8)) : short(source + i, n &- i)
    }

    /// `n` (0 to 7) bytes at `p` as the low bytes of a word, the rest `pad`; never reads past them.
    @inlinable @inline(__always)
    public static func short(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        let raw = UnsafeRawPointer(p)
        var w: UInt64 = 0
        var k = 0
        if n & 4 != 0 {
            w = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            k = 4
        }
        if n & 2 != 0 {
            w |= UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt16.self))) << UInt64(k &* 8)
            k &+= 2
        }
        if n & 1 != 0 { w |= UInt64(raw.load(fromByteOffset: k, as: UInt8.self)) << UInt64(k &* 8) }
        let kept: UInt64 = (1 << UInt64(n &* 8)) &- 1
        return w | (pad & ~kept)
    }

    /// Whether every word of the `n` bytes at `source` passes `test`: eight bytes a step, the last one to seven as one
    /// more word (`tail`). The one loop of the writers' escape checks (`JSONText.isPlain`, `CSVText.isPlainField`);
    /// inlined with the test, so each compiles to the loop it had when written out by hand.
    @inlinable @inline(__always)
    public static func every(_ source: UnsafePointer<UInt8>, _ n: Int, _ test: (UInt64) -> Bool) -> Bool {
        var i = 0
        while i &+ 8 <= n {
            if !test(load(source + i)) { return false }
            i &+= 8
        }
        return i == n || test(tail(source, n, from: i))
    }

    /// The position (0 to 7) of the lowest byte flagged in `flags` (from `equal`/`below`); `flags` not zero.
    @inlinable @inline(__always)
    public static func first(_ flags: UInt64) -> Int { flags.trailingZeroBitCount >> 3 }
}
