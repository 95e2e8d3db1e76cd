/// The Call-IDs and Via branches one receiver has seen lately, found again by their bytes: each received message
/// made a new `String` of both (a heap allocation each, 16 bytes and more, and a free when the message went),
/// though nearly every one is a string the agent holds already (its own branch in a response, a call's Call-ID
/// in each of its ~26 datagrams). A hit hands out the string the agent has, which also makes the later key
/// comparisons (transactions, calls, dialogs) a look at one pointer (issue 33).
///
/// Direct-mapped: 64 slots by a hash of the bytes, a miss replaces the slot. Strings of 15 bytes or fewer are
/// stored inline by `String` and are never cached (nothing to save). Only bytes that read back as themselves
/// hit (a string made from invalid UTF-8 holds other bytes), so what a message reads is what it would without
/// the cache.
public final class SIPStringCache {
    /// The slots in memory of their own: in an `Array`, each store checked its uniqueness first and each look
    /// copied the string out (a retain and a release) before comparing it (issue 33, round three).
    private let slots: UnsafeMutablePointer<String?>
    private static let count = 64

    public init() {
        slots = .allocate(capacity: Self.count)
        slots.initialize(repeating: nil, count: Self.count)
    }

    deinit {
        slots.deinitialize(count: Self.count)
        slots.deallocate()
    }

    /// `lo..<hi` of `b` as a `String`, the cached one when it holds these bytes.
    func string(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> String {
        guard hi - lo > 15 else { return ValueBytes.string(b, lo, hi) }
        let slot = slots + Self.slot(UnsafeBufferPointer(rebasing: b[lo..<hi]))
        if case .some(let cached) = slot.pointee, cached.utf8.count == hi - lo,
           ValueBytes.with(cached, { u in Self.same(u, b, lo) }) {
            return cached
        }
        let made = ValueBytes.string(b, lo, hi)
        slot.pointee = made
        return made
    }

    /// Keeps `value` (a Call-ID or branch this agent made) for the messages that will carry it back.
    public func note(_ value: String?) {
        guard let value, value.utf8.count > 15 else { return }
        slots[ValueBytes.with(value, Self.slot)] = value
    }

    /// The slot of `b` (16 bytes or more): its length and its first and last eight bytes, where a Call-ID's and a
    /// branch's random digits and counter lie; a byte-by-byte hash cost more than the allocation it saves.
    private static func slot(_ b: ValueBytes.Bytes) -> Int {
        let raw = UnsafeRawPointer(b.baseAddress!)
        let first = raw.loadUnaligned(as: UInt64.self)
        let last = raw.loadUnaligned(fromByteOffset: b.count - 8, as: UInt64.self)
        let h = (first ^ last &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(b.count)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: h >> 58)
    }

    /// Whether `u` is `b` from `lo` on, eight bytes a step (the lengths are equal and at least 16).
    private static func same(_ u: ValueBytes.Bytes, _ b: ValueBytes.Bytes, _ lo: Int) -> Bool {
        let x = UnsafeRawPointer(u.baseAddress!), y = UnsafeRawPointer(b.baseAddress! + lo)
        var k = 0
        while k + 8 <= u.count {
            guard x.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                    == y.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            else { return false }
            k += 8
        }
        return x.loadUnaligned(fromByteOffset: u.count - 8, as: UInt64.self)
            == y.loadUnaligned(fromByteOffset: u.count - 8, as: UInt64.self)
    }
}
