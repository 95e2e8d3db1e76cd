import Foundation

/// One `String` per distinct text of the history's fixed-shape lines, handed out again when the same bytes come back.
///
/// A hold call's Call-ID is on ~40 of its 46 lines and its devices on all of them: made anew each time, a Call-ID
/// (longer than a small string's 15 bytes) was an allocation, a UTF-8 validation and a free when the history was
/// released (~30 % of reading a SIP run's history, `callstorm check`'s profile). Here a text is a hash of its bytes
/// (eight at a time), a probe and a `memcmp`. A text the table holds was made by `String(decoding:as:)` from the
/// same bytes, so what a line reads as does not change. The table holds at most `limit` texts and starts again
/// empty after that, so a history of millions of calls keeps only its recent ones (the texts still read the same).
struct TextTable {
    /// Entry index + 1 by hash slot, 0 for an empty slot; a power of two, at least twice the entries.
    private var slots: [Int32] = Array(repeating: 0, count: 1_024)
    private var entries: [Entry] = []
    private var strings: [String] = []
    /// The entries' bytes, one after the other.
    private var bytes: [UInt8] = []

    private struct Entry {
        var start: Int
        var count: Int
        var hash: UInt64
    }

    static let limit = 65_536
    /// Longer texts (a flow step's name, say) are made each time: rare, and hashing them costs more.
    static let longest = 64

    /// The `String` of the `count` bytes at `base`, as `String(decoding:as: UTF8.self)` makes it.
    mutating func string(_ base: UnsafePointer<UInt8>, count: Int) -> String {
        guard count <= Self.longest else {
            return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        }
        let hash = Self.hash(base, count: count)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { break }
            let e = entries[Int(slot) - 1]
            if e.hash == hash, e.count == count,
               bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + e.start, base, count) }) == 0 {
                return strings[Int(slot) - 1]
            }
            i = (i + 1) & mask
        }
        let text = String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        if entries.count == Self.limit {
            self = TextTable()
            return add(text, base, count: count, hash: hash)
        }
        return add(text, base, count: count, hash: hash, at: i)
    }

    private mutating func add(_ text: String, _ base: UnsafePointer<UInt8>, count: Int, hash: UInt64,
                              at free: Int? = nil) -> String {
        entries.append(Entry(start: bytes.count, count: count, hash: hash))
        strings.append(text)
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        if entries.count * 2 > slots.count {
            rehash()
        } else {
            slots[free ?? probe(hash)] = Int32(entries.count)
        }
        return text
    }

    /// The first empty slot for `hash`.
    private func probe(_ hash: UInt64) -> Int {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        return i
    }

    private mutating func rehash() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for (k, e) in entries.enumerated() { slots[probe(e.hash)] = Int32(k + 1) }
    }

    /// A multiply-and-mix hash over eight bytes at a time (not for untrusted keys' worst cases: a history's texts are
    /// callstorm's own, and a bad spread costs probes, never a wrong text).
    static func hash(_ base: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9FB2_1C65_1E98_DF25
            h ^= h >> 29
            i += 8
        }
        // The last zero to seven bytes in at most three loads.
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        if count - i >= 4 {
            tail = UInt64(raw.loadUnaligned(fromByteOffset: i, as: UInt32.self))
            shift = 32
            i += 4
        }
        if count - i >= 2 {
            tail |= UInt64(raw.loadUnaligned(fromByteOffset: i, as: UInt16.self)) << shift
            shift += 16
            i += 2
        }
        if i < count { tail |= UInt64(base[i]) << shift }
        // murmur3's finalizer: every input bit moves the low bits the slot is taken from.
        h ^= tail
        h = (h ^ (h >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}
