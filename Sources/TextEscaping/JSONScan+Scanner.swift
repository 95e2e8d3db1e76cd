extension JSONScan {
    /// The pass: `JSONLite.Reader`'s grammar (its strings, numbers, literals and depth cap), walking the pattern's
    /// nodes beside the document. `active` is a stack of (node, block) pairs: a value's frame is the pairs its path
    /// reached (usually none or one; more when, say, an index step and a list meet on one array). A value no
    /// node reached is only checked, member names not compared.
    struct Scanner {
        var reader: JSONLite.Reader
        let pattern: JSONPattern
        var spots: [Spot]
        var active: [(node: Int, base: Int)] = []

        init(reader: JSONLite.Reader, pattern: JSONPattern, spots: [Spot]) {
            self.reader = reader
            self.pattern = pattern
            self.spots = spots
            active.reserveCapacity(16)
        }

        mutating func document() -> Bool {
            active.append((0, 0))
            guard value(depth: 0, frame: 0..<1) else { return false }
            reader.skipSpace()
            return reader.index == reader.bytes.count
        }

        private mutating func value(depth: Int, frame: Range<Int>) -> Bool {
            guard depth < JSONLite.Reader.maxDepth else { return false }
            reader.skipSpace()
            guard reader.index < reader.bytes.count else { return false }
            var spot = Spot()
            spot.start = reader.index
            switch reader.bytes[reader.index] {
            case UInt8(ascii: "{"):
                guard object(depth: depth, frame: frame) else { return false }
                spot.kind = .object
            case UInt8(ascii: "["):
                guard array(depth: depth, frame: frame) else { return false }
                spot.kind = .array
            case UInt8(ascii: "\""):
                guard let escaped = skipString() else { return false }
                (spot.kind, spot.flag, spot.start) = (.string, escaped, spot.start + 1)
                spot.end = reader.index - 1
            case UInt8(ascii: "t"):
                guard reader.literal("true", .null) != nil else { return false }
                (spot.kind, spot.flag) = (.bool, true)
            case UInt8(ascii: "f"):
                guard reader.literal("false", .null) != nil else { return false }
                spot.kind = .bool
            case UInt8(ascii: "n"):
                guard reader.literal("null", .null) != nil else { return false }
                spot.kind = .null
            default:
                guard case .number(let number) = reader.number() else { return false }
                (spot.kind, spot.number) = (.number, number)
            }
            if spot.kind != .string { spot.end = reader.index }
            if !frame.isEmpty { record(spot, frame) }
            return true
        }

        /// The value's spot into each slot its frame's nodes capture; a list's slot keeps the elements it linked.
        private mutating func record(_ spot: Spot, _ frame: Range<Int>) {
            for i in frame {
                let (node, base) = active[i]
                for slot in pattern.nodes[node].slots { spots[base + 1 + slot] = spot }
                if let list = pattern.nodes[node].list {
                    let at = base + 1 + list.slot
                    let (link, count) = (spots[at].link, spots[at].count)
                    spots[at] = spot
                    (spots[at].link, spots[at].count) = spot.kind == .array ? (link, count) : (-1, 0)
                }
            }
        }

        private mutating func object(depth: Int, frame: Range<Int>) -> Bool {
            reader.index += 1  // {
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "}") {
                reader.index += 1
                return true
            }
            var matching = false
            for i in frame where !pattern.nodes[active[i].node].keys.isEmpty { matching = true }
            while true {
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                    return false
                }
                let keyStart = reader.index + 1
                guard let escaped = skipString() else { return false }
                let keyEnd = reader.index - 1
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else {
                    return false
                }
                reader.index += 1
                let lower = active.count
                if matching {
                    for i in frame { enter(active[i], key: keyStart..<keyEnd, escaped: escaped) }
                }
                guard value(depth: depth + 1, frame: lower..<active.count) else { return false }
                active.removeSubrange(lower...)
                reader.skipSpace()
                guard reader.index < reader.bytes.count else { return false }
                if reader.bytes[reader.index] == UInt8(ascii: ",") {
                    reader.index += 1
                } else if reader.bytes[reader.index] == UInt8(ascii: "}") {
                    reader.index += 1
                    return true
                } else {
                    return false
                }
            }
        }

        /// Pushes the child `pair`'s node has for this member name, its slots emptied (a repeated name: the last
        /// member counts).
        private mutating func enter(_ pair: (node: Int, base: Int), key: Range<Int>, escaped: Bool) {
            guard let child = child(of: pattern.nodes[pair.node], key: key, escaped: escaped) else { return }
            for slot in pattern.nodes[child].clears { spots[pair.base + 1 + slot] = Spot() }
            active.append((child, pair.base))
        }

        private func child(of node: JSONPattern.Node, key: Range<Int>, escaped: Bool) -> Int? {
            guard !node.keys.isEmpty else { return nil }
            let bytes = reader.bytes
            if !escaped {
                for candidate in node.keys where candidate.bytes.count == key.count {
                    var same = true
                    for j in 0..<key.count where candidate.bytes[j] != bytes[key.lowerBound + j] {
                        same = false
                        break
                    }
                    if same { return candidate.child }
                }
                // Plain ASCII names on both sides are equal only byte for byte.
                if node.asciiKeys, !bytes[key].contains(where: { $0 >= 0x80 }) { return nil }
            }
            var decoder = JSONLite.Reader(bytes: bytes, index: key.lowerBound - 1)
            guard let text = decoder.string() else { return nil }
            return node.keys.first { $0.text == text }?.child
        }

        private mutating func array(depth: Int, frame: Range<Int>) -> Bool {
            reader.index += 1  // [
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "]") {
                reader.index += 1
                return true
            }
            var matching = false
            for i in frame {
                let node = pattern.nodes[active[i].node]
                if node.list != nil || !node.indices.isEmpty { matching = true }
            }
            var position = 0
            while true {
                let lower = active.count
                if matching {
                    for i in frame { element(position, of: active[i]) }
                }
                guard value(depth: depth + 1, frame: lower..<active.count) else { return false }
                active.removeSubrange(lower...)
                position += 1
                reader.skipSpace()
                guard reader.index < reader.bytes.count else { return false }
                if reader.bytes[reader.index] == UInt8(ascii: ",") {
                    reader.index += 1
                } else if reader.bytes[reader.index] == UInt8(ascii: "]") {
                    reader.index += 1
                    return true
                } else {
                    return false
                }
            }
        }

        /// Pushes the node of the array's `position`-th element, and for a list a new block of the elements' group
        /// linked after the previous element's (the list's `end` holds the last block until the array is recorded).
        private mutating func element(_ position: Int, of pair: (node: Int, base: Int)) {
            let node = pattern.nodes[pair.node]
            for entry in node.indices where entry.index == position { active.append((entry.child, pair.base)) }
            guard let list = node.list else { return }
            let group = pattern.groups[list.group]
            let base = spots.count
            spots.append(contentsOf: repeatElement(Spot(), count: 1 + group.slots))
            let at = pair.base + 1 + list.slot
            if spots[at].count == 0 { spots[at].link = base } else { spots[spots[at].end].link = base }
            spots[at].count += 1
            spots[at].end = base
            active.append((group.root, base))
        }

        /// Checks a string at its opening quote as `JSONLite.Reader.string()` reads it, decoding nothing; nil when
        /// malformed, else whether it has escapes.
        private mutating func skipString() -> Bool? {
            reader.index += 1  // opening quote
            reader.skipPlainWords()
            var escaped = false
            while reader.index < reader.bytes.count {
                let b = reader.bytes[reader.index]
                reader.index += 1
                if b == UInt8(ascii: "\"") { return escaped }
                if b < 0x20 { return nil }
                if b == UInt8(ascii: "\\") {
                    guard reader.escapedScalar() != nil else { return nil }
                    escaped = true
                }
            }
            return nil
        }
    }
}
