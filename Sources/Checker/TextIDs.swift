import Foundation

/// A small integer for each distinct text (a Call-ID, a device), given once, in the order the texts are first added.
///
/// The checker's state per conversation and per device was in `String`-keyed dictionaries: each lookup hashed the
/// whole text with SipHash and probed, and a SIP call's 46 lines made ~25 of them (~20 k instructions a call in
/// `callstorm run`'s check, issue 33). Here a text is hashed with `TextTable.hash` (eight bytes at a time) once per
/// line at the edge, and the state it keys sits in arrays indexed by its id. The id of a text never changes, and
/// nothing is ever removed, so an array indexed by id stays valid for the whole history.
struct TextIDs {
    /// id + 1 by hash slot, 0 for an empty slot; a power of two, at least twice the texts.
    private var slots: [Int32] = Array(repeating: 0, count: 256)
    private var hashes: [UInt64] = []
    /// The texts by id.
    private(set) var texts: [String] = []
    /// Ids found lately, by the two words of the `String` they were found for (`Recent`).
    private var recent = Recent()

    var count: Int { texts.count }

    /// The id of `text`, nil when it was never added.
    func find(_ text: String) -> Int? {
        if let id = recent.id(text) { return id }
        let hash = Self.hash(text)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = Int(slots[i])
            if slot == 0 { return nil }
            if hashes[slot - 1] == hash, texts[slot - 1] == text { return slot - 1 }
            i = (i + 1) & mask
        }
    }

    /// The id of `text`, the next one when it is new.
    mutating func id(_ text: String) -> Int {
        if let id = recent.id(text) { return id }
        let hash = Self.hash(text)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = Int(slots[i])
            if slot == 0 { break }
            if hashes[slot - 1] == hash, texts[slot - 1] == text {
                recent.remember(text, slot - 1)
                return slot - 1
            }
            i = (i + 1) & mask
        }
        let id = texts.count
        texts.append(text)
        hashes.append(hash)
        if texts.count * 2 > slots.count {
            slots = Array(repeating: 0, count: slots.count * 2)
            for (k, h) in hashes.enumerated() { slots[probe(h)] = Int32(k + 1) }
        } else {
            slots[i] = Int32(id + 1)
        }
        recent.remember(text, id)
        return id
    }

    /// The first empty slot for `hash`.
    private func probe(_ hash: UInt64) -> Int {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        return i
    }

    /// `TextTable.hash` of the text's UTF-8 bytes, of its NFC form's for a text that is not all ASCII: `==` on
    /// `String`s is canonical equivalence (the dictionaries this replaces made "K" and the Kelvin sign one key), so
    /// equal texts must hash alike whatever their bytes. A history's texts are ASCII (callstorm's own Call-IDs and
    /// device names); the normalising path is for hand-written ones.
    static func hash(_ text: String) -> UInt64 {
        if let h = text.utf8.withContiguousStorageIfAvailable({ bytes -> UInt64? in
            guard let base = bytes.baseAddress else { return 0 }
            return isASCII(base, count: bytes.count) ? TextTable.hash(base, count: bytes.count) : nil
        }), let h {
            return h
        }
        var nfc = text.precomposedStringWithCanonicalMapping
        return nfc.withUTF8 { bytes in bytes.baseAddress.map { TextTable.hash($0, count: bytes.count) } ?? 0 }
    }

    /// No byte with its high bit set, eight at a time.
    static func isASCII(_ base: UnsafePointer<UInt8>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(base)
        var high: UInt64 = 0
        var i = 0
        while i + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            high |= UInt64(base[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

extension CheckState {
    /// The number of conversation id `id`, given now when it is new (with no conversation and no SIP call).
    mutating func name(_ id: String) -> Int {
        let n = names.id(id)
        if n == conversationOf.count {
            conversationOf.append(-1)
            sip.callOf.append(-1)
        }
        return n
    }

    /// The number of device `device`, given now when it is new (no actor, no active dialogs).
    mutating func device(_ device: String) -> Int {
        let n = devices.id(device)
        if n == isActor.count {
            isActor.append(false)
            sip.active.append([])
        }
        return n
    }

    /// Whether `device` invoked an op.
    func isActor(_ device: String) -> Bool { devices.find(device).map { isActor[$0] } ?? false }
}
