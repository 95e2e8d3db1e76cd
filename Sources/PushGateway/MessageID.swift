import Determinism
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Fast stand-ins for Foundation on the gateway's hot path, where `UUID().uuidString` (~4 µs) and `Date()`
/// would be a large share of a push's cost.
enum MessageID {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    /// A process-wide counter from a random start, mixed by SplitMix64's finalizer: unique for 2^64 ids and
    /// unpredictable enough for message ids, without a getrandom(2) call per push.
    private static let counter = Atomic<UInt64>({
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }())
    private static let salt: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// A random (version 4) UUID in lowercase canonical form, as APNs generates for a missing `apns-id`.
    static func random() -> String {
        let n = counter.wrappingAdd(SeededRandom.golden, ordering: .relaxed).newValue
        var high = SeededRandom.mix(n)
        var low = SeededRandom.mix(n ^ salt)
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            func put(_ value: UInt64, nibbles: Int) {
                var shift = (nibbles - 1) * 4
                for _ in 0..<nibbles {
                    out[i] = hex[Int((value >> UInt64(shift)) & 0xF)]
                    i += 1
                    shift -= 4
                }
            }
            put(high >> 32, nibbles: 8); out[i] = UInt8(ascii: "-"); i += 1
            put(high >> 16, nibbles: 4); out[i] = UInt8(ascii: "-"); i += 1
            put(high, nibbles: 4); out[i] = UInt8(ascii: "-"); i += 1
            put(low >> 48, nibbles: 4); out[i] = UInt8(ascii: "-"); i += 1
            put(low, nibbles: 12)
            return 36
        }
    }

    /// Wall-clock seconds since the epoch.
    static func epochSeconds() -> Int64 {
        Int64(time(nil))
    }
}
