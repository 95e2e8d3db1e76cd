/// Decimal digits read eight at a time, for the readers of run files whose lines carry long numbers (history.jsonl's
/// nanosecond times: the join in Results, the checker's fixed-line reader): one place for the bit trick.
public enum DecimalDigits {
    /// The value of the eight bytes at `p` when all are decimal digits, nil otherwise: one load, two checks and
    /// three multiplications, where a digit-by-digit loop takes ~8 instructions a digit.
    @inlinable @inline(__always)
    public static func eight(_ p: UnsafePointer<UInt8>) -> UInt64? {
        let chunk = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        // Each byte 0x30...0x39: its high nibble 3, and still 3 after adding 6 (0x3A and up carry into it).
        guard chunk & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
              (chunk &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else { return nil }
        var v = chunk &- 0x3030_3030_3030_3030  // the first digit in the lowest byte
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        return (v &* 10_000 &+ (v >> 32)) & 0xFFFF_FFFF
    }

    /// The value of the decimal digits that begin the eight bytes `chunk` (loaded little-endian: its first byte
    /// lowest) and how many there are, 0...8: each byte's digit test at once, the count up to the first non-digit,
    /// the digits right-aligned into `eight`'s sum. For numbers of any length up to 16 digits in two loads, where
    /// `eight` and a digit-by-digit tail took ~100 instructions for a history time's ~10 digits.
    @inlinable @inline(__always)
    public static func leading(_ chunk: UInt64) -> (value: UInt64, count: Int) {
        let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0, threes: UInt64 = 0x3030_3030_3030_3030
        // As in `eight`; a carry out of a byte (0xFA and up) reaches only the bytes after it, which follow a
        // non-digit and are not counted.
        let other = ((chunk & nibbles) ^ threes) | (((chunk &+ 0x0606_0606_0606_0606) & nibbles) ^ threes)
        let count = other == 0 ? 8 : other.trailingZeroBitCount >> 3
        guard count > 0 else { return (0, 0) }
        // The digits moved to the high bytes, zeros (leading zero digits) below them; a borrow from the bytes
        // after the digits is shifted out with them.
        var v = (chunk &- threes) &<< UInt64(64 - 8 * count)
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        return ((v &* 10_000 &+ (v >> 32)) & 0xFFFF_FFFF, count)
    }
}

