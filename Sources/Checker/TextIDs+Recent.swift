extension TextIDs {
    /// The ids of texts seen lately, found by the identity of the `String` passed, not by its text: the reader's
    /// `TextTable` hands out one `String` per text, so the checker sees the same `String` (the same two words: a
    /// small string's bytes, or a large one's pointer to its storage) on every line that names a Call-ID or a
    /// device. Hashing and comparing those two words replaces hashing the text a second time, after the reader
    /// hashed it once (`isASCII` and `TextTable.hash` over each text, ~5 k instructions a SIP call; issue 33).
    ///
    /// A slot holds the `String` it was filled from, so its storage cannot be freed and its address given to
    /// another text while the slot names it: two words equal to a slot's are that same `String`, the same text.
    /// Direct-mapped: a collision, or the same text in another `String` (a general line's, or after the
    /// reader's table started again), is a miss, which finds the id by its text and fills the slot again.
    struct Recent {
        private var first: [UInt64] = []
        private var second: [UInt64] = []
        /// The id + 1 of each slot, 0 for an empty one.
        private var ids: [Int32] = []
        /// The `String` each slot was filled from, kept alive (see above).
        private var held: [String] = []

        /// The id remembered for this very `String`, nil when none is.
        func id(_ text: String) -> Int? {
            guard !ids.isEmpty else { return nil }
            let (a, b) = Self.words(text)
            let k = Self.slot(a, b, count: Self.size)
            guard ids[k] != 0, first[k] == a, second[k] == b else { return nil }
            return Int(ids[k]) - 1
        }

        /// Slots for the texts of the calls in flight (a few hundred at a time): a history is in time order, so
        /// the texts met again soon are the recent ones, and the slots need not grow with all the texts seen.
        static let size = 1_024

        /// Remembers `id` for `text`, in place of whatever its slot held.
        mutating func remember(_ text: String, _ id: Int) {
            if ids.isEmpty {
                first = Array(repeating: 0, count: Self.size)
                second = first
                ids = Array(repeating: 0, count: Self.size)
                held = Array(repeating: "", count: Self.size)
            }
            let (a, b) = Self.words(text)
            let k = Self.slot(a, b, count: Self.size)
            first[k] = a
            second[k] = b
            ids[k] = Int32(id + 1)
            held[k] = text
        }

        /// The two words a `String` is made of (16 bytes on every 64-bit platform Swift runs on).
        @inline(__always)
        static func words(_ text: String) -> (UInt64, UInt64) {
            unsafeBitCast(text, to: (UInt64, UInt64).self)
        }

        /// murmur3's finalizer over the two words: a device's small string differs from the next in its fourth to
        /// seventh bytes, which a single multiply leaves out of the low bits the slot is taken from.
        @inline(__always)
        static func slot(_ a: UInt64, _ b: UInt64, count: Int) -> Int {
            var h = a ^ (b &* 0x9E37_79B9_7F4A_7C15)
            h = (h ^ (h >> 33)) &* 0xFF51_AFD7_ED55_8CCD
            h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
            return Int(truncatingIfNeeded: h ^ (h >> 33)) & (count - 1)
        }
    }
}
