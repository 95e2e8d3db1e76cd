import Foundation

/// The ids of one history (Call-IDs, conversation ids), each made a `String` once and handed out again for every
/// line that names it.
///
/// A SIP call's Call-ID is on ~40 lines and is longer than a small string's 15 bytes, so decoding it per line was a
/// heap `String` per line (validation, malloc, and the release and free when the events go): ~1 k instructions a
/// line, about a sixth of reading a history. A lookup here is a hash of the bytes a word at a time and one `memcmp`.
/// The same `String` shared also makes the checker's id comparisons cheap (equal storage compares at once).
/// Small strings (≤ 15 bytes: device names, message words) are decoded directly: they need no allocation.
struct HistoryIds {
    /// Every id's bytes, one after another; entry `i` is `bytes[starts[i]..<starts[i] + counts[i]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = []
    private var counts: [Int] = []
    private var texts: [String] = []
    /// Open addressing, a power of two long: entry index + 1, 0 for an empty slot.
    private var slots: [Int32] = []

    static let smallest = 16

    /// The id these (decoded) bytes spell: the same `String` each time they come again.
    mutating func string(_ word: UnsafeBufferPointer<UInt8>) -> String {
        guard word.count >= Self.smallest, let base = word.baseAddress else {
            return String(decoding: word, as: UTF8.self)
        }
        if slots.isEmpty { slots = [Int32](repeating: 0, count: 256) }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: Self.hash(base, word.count)) & mask
        while true {
            let k = Int(slots[i])
            if k == 0 { break }
            if counts[k - 1] == word.count,
               bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + starts[k - 1], base, word.count) }) == 0 {
                return texts[k - 1]
            }
            i = (i + 1) & mask
        }
        let text = String(decoding: word, as: UTF8.self)
        starts.append(bytes.count)
        counts.append(word.count)
        bytes.append(contentsOf: word)
        texts.append(text)
        slots[i] = Int32(texts.count)
        if texts.count * 2 > slots.count { grow() }
        return text
    }

    /// Doubles the slots and places every entry again (kept at most half full, so probes stay short).
    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        bytes.withUnsafeBufferPointer { all in
            for k in texts.indices {
                var i = Int(truncatingIfNeeded: Self.hash(all.baseAddress! + starts[k], counts[k])) & mask
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = Int32(k + 1)
            }
        }
    }

    /// A multiplicative hash over the bytes, eight at a time (the tail zero-padded), folded to its high bits.
    @inline(__always)
    private static func hash(_ base: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: count)
        var i = 0
        while i + 8 <= count {
            h = (h ^ UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(base[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        return h ^ (h >> 32)
    }
}
