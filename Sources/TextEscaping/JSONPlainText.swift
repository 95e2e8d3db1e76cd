extension JSONText {
    /// Whether the `n` bytes at `source` need no JSON escape: no control byte (below 0x20), no `"` and no `\`.
    /// Eight bytes a step: a word has a byte below 0x20 when `(w - 0x20…20) & ~w & 0x80…80` is not zero, and a
    /// byte equal to `c` when the same test for zero holds of `w ^ c…c` (exact for "any byte"); the tail byte by
    /// byte. For writers that fill raw memory (the reference target's views, `ViewWriter`; history lines,
    /// `JSONLineWriter`): a byte loop was ~7 instructions a byte.
    @inlinable
    public static func isPlain(_ source: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i &+ 8 <= n {
            let w = UInt64(littleEndian: UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self))
            let quote = w ^ (ones &* 0x22)
            let backslash = w ^ (ones &* 0x5C)
            let low = (w &- ones &* 0x20) & ~w
            let q = (quote &- ones) & ~quote
            let s = (backslash &- ones) & ~backslash
            if (low | q | s) & highs != 0 { return false }
            i &+= 8
        }
        while i < n {
            let b = source[i]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
            i &+= 1
        }
        return true
    }
}
