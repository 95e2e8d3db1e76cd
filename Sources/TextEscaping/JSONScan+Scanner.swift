extension JSONScan {
    /// The pass: `JSONLite.Reader`'s grammar (its strings, numbers, literals and depth cap), walking the pattern's
    /// nodes beside the document. `active` is a stack of (node, block) pairs: a value's frame is the pairs its path
    /// reached (usually none or one; more when, say, an index step and a list meet on one array). A value no
    /// node reached is only checked, member names not compared.
    struct Scanner {
        typealias Table = JSONPattern.Table
        var reader: JSONLite.Reader
        /// The pattern's table, through its buffers (`JSONScan.init` holds them for the pass).
        let table: Table
        let nodes: UnsafeBufferPointer<Table.FlatNode>
        let keys: UnsafeBufferPointer<Table.FlatKey>
        let keyBytes: UnsafeBufferPointer<UInt8>
        let ints: UnsafeBufferPointer<Int>
        var spots: [Spot]
        var active: [(node: Int, base: Int)] = []

        init(reader: JSONLite.Reader, table: Table, nodes: UnsafeBufferPointer<Table.FlatNode>,
             keys: UnsafeBufferPointer<Table.FlatKey>, keyBytes: UnsafeBufferPointer<UInt8>,
             ints: UnsafeBufferPointer<Int>, spots: [Spot]) {
            (self.reader, self.table, self.nodes, self.keys) = (reader, table, nodes, keys)
            (self.keyBytes, self.ints, self.spots) = (keyBytes, ints, spots)
            active.reserveCapacity(16)
        }

        mutating func document() -> Bool {
            active.append((0, 0))
            guard value(depth: 0, frame: 0..<1) else { return false }
            reader.skipSpace()
            return reader.index == reader.bytes.count
        }

        private mutating func value(depth: Int, frame: Range<Int>) -> Bool {
            if frame.isEmpty { return skip(depth: depth) }
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
            record(spot, frame)
            return true
        }

        /// A value no pattern node reached: checked by the same grammar, nothing noted.
        private mutating func skip(depth: Int) -> Bool {
            guard depth < JSONLite.Reader.maxDepth else { return false }
            reader.skipSpace()
            guard reader.index < reader.bytes.count else { return false }
            switch reader.bytes[reader.index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = reader.bytes[reader.index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                reader.index += 1
                reader.skipSpace()
                if reader.index < reader.bytes.count, reader.bytes[reader.index] == close {
                    reader.index += 1
                    return true
                }
                while true {
                    if close == UInt8(ascii: "}") {
                        reader.skipSpace()
                        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\""),
                              skipString() != nil else { return false }
                        reader.skipSpace()
                        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else {
                            return false
                        }
                        reader.index += 1
                    }
                    guard skip(depth: depth + 1) else { return false }
                    reader.skipSpace()
                    guard reader.index < reader.bytes.count else { return false }
                    let b = reader.bytes[reader.index]
                    reader.index += 1
                    if b == close { return true }
                    guard b == UInt8(ascii: ",") else { return false }
                }
            case UInt8(ascii: "\""): return skipString() != nil
            case UInt8(ascii: "t"): return reader.literal("true", .null) != nil
            case UInt8(ascii: "f"): return reader.literal("false", .null) != nil
            case UInt8(ascii: "n"): return reader.literal("null", .null) != nil
            default: return reader.number() != nil
            }
        }

        /// The value's spot into each slot its frame's nodes capture; a list's slot keeps the elements it linked.
        private mutating func record(_ spot: Spot, _ frame: Range<Int>) {
            for i in frame {
                let (node, base) = active[i]
                for j in nodes[node].slots { spots[base + 1 + ints[j]] = spot }
                if nodes[node].listSlot >= 0 {
                    let at = base + 1 + nodes[node].listSlot
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
            for i in frame where !nodes[active[i].node].keys.isEmpty { matching = true }
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
                if active.count > lower { active.removeLast(active.count - lower) }
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
            guard let child = child(of: nodes[pair.node], key: key, escaped: escaped) else { return }
            for j in nodes[child].clears { spots[pair.base + 1 + ints[j]] = Spot() }
            active.append((child, pair.base))
        }

        private func child(of node: Table.FlatNode, key: Range<Int>, escaped: Bool) -> Int? {
            guard !node.keys.isEmpty else { return nil }
            let bytes = reader.bytes
            if !escaped {
                for k in node.keys where keys[k].bytes.count == key.count {
                    let candidate = keys[k].bytes.lowerBound
                    var same = true
                    for j in 0..<key.count where keyBytes[candidate + j] != bytes[key.lowerBound + j] {
                        same = false
                        break
                    }
                    if same { return keys[k].child }
                }
                // Plain ASCII names on both sides are equal only byte for byte.
                if node.asciiKeys, !bytes[key].contains(where: { $0 >= 0x80 }) { return nil }
            }
            var decoder = JSONLite.Reader(bytes: bytes, index: key.lowerBound - 1)
            guard let text = decoder.string() else { return nil }
            return node.keys.first { table.keyTexts[$0] == text }.map { keys[$0].child }
        }

        private mutating func array(depth: Int, frame: Range<Int>) -> Bool {
            reader.index += 1  // [
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "]") {
                reader.index += 1
                return true
            }
            var matching = false
            for i in frame where nodes[active[i].node].listSlot >= 0 || !nodes[active[i].node].indices.isEmpty {
                matching = true
            }
            var position = 0
            while true {
                let lower = active.count
                if matching {
                    for i in frame { element(position, of: active[i]) }
                }
                guard value(depth: depth + 1, frame: lower..<active.count) else { return false }
                if active.count > lower { active.removeLast(active.count - lower) }
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
            let node = nodes[pair.node]
            let pairs = stride(from: node.indices.lowerBound, to: node.indices.upperBound, by: 2)
            for j in pairs where ints[j] == position {
                active.append((ints[j + 1], pair.base))
            }
            guard node.listSlot >= 0 else { return }
            let base = spots.count
            spots.append(contentsOf: repeatElement(Spot(), count: 1 + table.groupSlots[node.listGroup]))
            let at = pair.base + 1 + node.listSlot
            if spots[at].count == 0 { spots[at].link = base } else { spots[spots[at].end].link = base }
            spots[at].count += 1
            spots[at].end = base
            active.append((table.groupRoots[node.listGroup], base))
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
