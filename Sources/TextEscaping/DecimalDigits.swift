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
}
