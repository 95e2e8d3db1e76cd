/// A JSON document read once for the values a `JSONPattern` names: where each lies in the bytes and what kind of
/// value it is, checked by the same grammar as `JSONLite.parse` (a document one refuses the other refuses), with
/// no tree of values and no String made for a member name. A value becomes a String or a number only when its
/// reader asks for it (`string`, `int`).
///
/// Why: a push or an action's answer went into a JSONLite tree (an array per object, a String per key and per
/// value) and the device then read a handful of mapped fields from it: ~18,000–25,000 instructions a document,
/// ~250,000 an HTTP call (docs/BENCHMARKS.md). Lookups keep the tree's meaning: an object's last member of a name
/// is the one read, a key step finds nothing in a non-object and an index step nothing in a non-array.
/// Sendable: plain values only (the bytes and the slots' spots, no reference to the pattern), so a scan made on the
/// gateway's thread can be handed to a worker as it stands.
public struct JSONScan: Sendable {
    /// What a captured value is; `absent` when its path found nothing.
    public enum Kind: UInt8, Sendable {
        case absent, null, bool, number, string, object, array
    }

    /// One element of a list, or the document (`root`): the block of its group's slots.
    public struct Instance: Sendable, Equatable {
        let base: Int
        public static let root = Instance(base: 0)
    }

    /// One slot's value. A block of slots starts with a header (an element's link to the next element); a list's
    /// slot counts its elements and links the first (`link`, `count`).
    struct Spot: Sendable {
        var kind = Kind.absent
        /// A string with escapes to decode; a `true`.
        var flag = false
        /// A string of ASCII bytes only (escapes aside): made into a String without UTF-8 validation.
        var ascii = false
        /// Strings: the bytes between the quotes. Other values: the value's bytes.
        var start = 0
        var end = 0
        var link = -1
        var count = 0
        var number = 0.0
    }

    public let bytes: [UInt8]
    var spots: [Spot]

    /// The scan of `bytes`, or nil when they are not one well-formed JSON value (`JSONLite.parse`'s rule).
    public init?(_ bytes: [UInt8], _ pattern: JSONPattern) {
        let table = pattern.table
        var spots: [Spot] = []
        let ok = bytes.withUnsafeBufferPointer { buffer in
            table.nodes.withUnsafeBufferPointer { nodes in
                table.keys.withUnsafeBufferPointer { keys in
                    table.keyBytes.withUnsafeBufferPointer { keyBytes in
                        table.ints.withUnsafeBufferPointer { ints in
                            var scanner = Scanner(reader: JSONLite.Reader(bytes: buffer), table: table, nodes: nodes,
                                                  keys: keys, keyBytes: keyBytes, ints: ints)
                            defer { scanner.release() }
                            guard scanner.document() else { return false }
                            spots = Array(UnsafeBufferPointer(start: scanner.spots.base, count: scanner.spots.count))
                            return true
                        }
                    }
                }
            }
        }
        guard ok else { return nil }
        self.bytes = bytes
        self.spots = spots
    }

    // MARK: - Reading a slot

    private func spot(_ slot: JSONPattern.Slot, _ instance: Instance) -> Spot { spots[instance.base + 1 + slot.index] }

    public func kind(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> Kind { spot(slot, instance).kind }

    /// Present and not null: JSONDecoder's rule for an optional field (`JSONField`).
    public func isPresent(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> Bool {
        let kind = spot(slot, instance).kind
        return kind != .absent && kind != .null
    }

    /// The string, escapes decoded (invalid UTF-8 repaired, as `JSONLite` does); nil when not a string.
    public func string(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> String? {
        let spot = spot(slot, instance)
        guard spot.kind == .string else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard spot.flag else {
                let text = UnsafeBufferPointer(rebasing: buffer[spot.start..<spot.end])
                guard spot.ascii else { return String(decoding: text, as: UTF8.self) }
                // Known ASCII: a String of up to 15 bytes is made in place without the validation `decoding`
                // runs (~190 instructions a string, ~170 strings an HTTP call; issue 33).
                return String(unsafeUninitializedCapacity: text.count) { out in
                    _ = out.initialize(fromContentsOf: text)
                    return text.count
                }
            }
            var reader = JSONLite.Reader(bytes: buffer, index: spot.start - 1)
            return reader.string()
        }
    }

    /// An integral number that fits in Int (`JSONLite.Value.intValue`'s rule); nil otherwise.
    public func int(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> Int? {
        let spot = spot(slot, instance)
        guard spot.kind == .number else { return nil }
        return JSONLite.Value.number(spot.number).intValue
    }

    public func bool(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> Bool? {
        let spot = spot(slot, instance)
        return spot.kind == .bool ? spot.flag : nil
    }

    /// The value as a JSONLite tree (what `JSONLite.parse` gives for its bytes); nil when absent.
    public func value(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> JSONLite.Value? {
        let spot = spot(slot, instance)
        switch spot.kind {
        case .absent: return nil
        case .string: return string(slot, instance).map(JSONLite.Value.string)
        default: return JSONLite.parse(Array(bytes[spot.start..<spot.end]))
        }
    }

    /// The value's JSON text as the document has it (a string with its quotes, escapes as sent); nil when absent.
    /// For a caller that hands a part of a document on as JSON (a socket reply's body read as an HTTP answer's).
    public func text(_ slot: JSONPattern.Slot, _ instance: Instance = .root) -> ArraySlice<UInt8>? {
        let spot = spot(slot, instance)
        switch spot.kind {
        case .absent: return nil
        case .string: return bytes[(spot.start - 1)..<(spot.end + 1)]
        default: return bytes[spot.start..<spot.end]
        }
    }

    /// The elements of a list, in document order; nil when the value there is not an array.
    public func elements(_ list: JSONPattern.Slot, _ instance: Instance = .root) -> Elements? {
        let spot = spot(list, instance)
        guard spot.kind == .array else { return nil }
        return Elements(spots: spots, first: spot.link, count: spot.count)
    }

    public struct Elements: Sequence, Sendable {
        let spots: [Spot]
        let first: Int
        public let count: Int

        public struct Iterator: IteratorProtocol {
            let spots: [Spot]
            var base: Int
            var left: Int

            public mutating func next() -> Instance? {
                guard left > 0 else { return nil }
                left -= 1
                let instance = Instance(base: base)
                base = spots[base].link
                return instance
            }
        }

        public func makeIterator() -> Iterator { Iterator(spots: spots, base: first, left: count) }
        public var underestimatedCount: Int { count }
    }
}
