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
        /// The slots' values and the frames' (node, block) pairs, in buffers of the scan's own (`Stack`, freed by
        /// `release`): as arrays, each write and each frame popped checked the array's uniqueness and `removeLast`
        /// went through `replaceSubrange` (~600 uniqueness checks and ~12,000 instructions an HTTP call, issue 33).
        var spots: Stack<Spot>
        var active: Stack<(node: Int, base: Int)>

        init(reader: JSONLite.Reader, table: Table, nodes: UnsafeBufferPointer<Table.FlatNode>,
             keys: UnsafeBufferPointer<Table.FlatKey>, keyBytes: UnsafeBufferPointer<UInt8>,
             ints: UnsafeBufferPointer<Int>) {
            (self.reader, self.table, self.nodes, self.keys) = (reader, table, nodes, keys)
            (self.keyBytes, self.ints) = (keyBytes, ints)
            spots = Stack(capacity: 64)
            spots.append(Spot(), count: 1 + table.groupSlots[0])
            active = Stack(capacity: 16)
        }

        /// A node read in place: passing or binding a `FlatNode` (89 bytes) copied it with a memcpy call, one a member.
        @inline(__always)
        private func node(_ n: Int) -> UnsafePointer<Table.FlatNode> { nodes.baseAddress.unsafelyUnwrapped + n }

        /// Frees the buffers; the scanner is not used after.
        mutating func release() {
            spots.release()
            active.release()
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
                guard let string = skipKey() else { return false }
                (spot.kind, spot.flag, spot.start) = (.string, string.escaped, spot.start + 1)
                spot.ascii = !string.nonASCII
                spot.end = reader.index - 1
            case UInt8(ascii: "t"):
                guard literal(Self.trueWord, count: 4) else { return false }
                (spot.kind, spot.flag) = (.bool, true)
            case UInt8(ascii: "f"):
                guard literal(Self.falseWord, count: 5) else { return false }
                spot.kind = .bool
            case UInt8(ascii: "n"):
                guard literal(Self.nullWord, count: 4) else { return false }
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
                              skipKey() != nil else { return false }
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
            case UInt8(ascii: "\""): return skipKey() != nil
            case UInt8(ascii: "t"): return literal(Self.trueWord, count: 4)
            case UInt8(ascii: "f"): return literal(Self.falseWord, count: 5)
            case UInt8(ascii: "n"): return literal(Self.nullWord, count: 4)
            default: return reader.number() != nil
            }
        }

        /// The value's spot into each slot its frame's nodes capture; a list's slot keeps the elements it linked.
        private mutating func record(_ spot: Spot, _ frame: Range<Int>) {
            for i in frame {
                let (n, base) = active[i]
                let node = self.node(n)
                for j in node.pointee.slots { spots[base + 1 + ints[j]] = spot }
                if node.pointee.listSlot >= 0 {
                    let at = base + 1 + node.pointee.listSlot
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
            for i in frame where !node(active[i].node).pointee.keys.isEmpty { matching = true }
            while true {
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                    return false
                }
                let keyStart = reader.index + 1
                guard let name = skipKey() else { return false }
                let keyEnd = reader.index - 1
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else {
                    return false
                }
                reader.index += 1
                let lower = active.count
                if matching {
                    for i in frame { enter(active[i], key: keyStart..<keyEnd, name: name) }
                }
                guard value(depth: depth + 1, frame: lower..<active.count) else { return false }
                active.count = lower
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
        private mutating func enter(_ pair: (node: Int, base: Int), key: Range<Int>, name: StringKind) {
            guard let child = child(of: pair.node, key: key, name: name) else { return }
            for j in node(child).pointee.clears {
                // Empty already (the name's first member, the usual case): no 64-byte store. An absent spot with
                // no elements counted is `Spot()` (only `element` writes an absent spot, and it counts).
                let at = pair.base + 1 + ints[j]
                if spots[at].kind != .absent || spots[at].count != 0 { spots[at] = Spot() }
            }
            active.append((child, pair.base))
        }

        /// Inlined into `object` (it was, until the name's first-word read there made `object` too large for the
        /// inliner: a call per member cost ~17,000 instructions an HTTP call); the decoding comparison stays out.
        @inline(__always)
        private mutating func child(of n: Int, key: Range<Int>, name: StringKind) -> Int? {
            let node = self.node(n)
            let nodeKeys = node.pointee.keys
            guard !nodeKeys.isEmpty else { return nil }
            let bytes = reader.bytes
            if !name.escaped {
                let count = key.count
                let head = Table.head(bytes, key.lowerBound, count)
                let bucket = Table.filterIndex(head: head, count: count)
                if node.pointee.keyFilter & (1 << UInt64(bucket)) != 0 {
                    var k = ints[node.pointee.buckets &+ bucket]
                    while k >= 0 {
                        if keys[k].head == head && keys[k].bytes.count == count {
                            let candidate = keys[k].bytes.lowerBound
                            var same = true
                            for j in 8..<max(count, 8) where keyBytes[candidate + j] != bytes[key.lowerBound + j] {
                                same = false
                                break
                            }
                            if same { return keys[k].child }
                        }
                        k = keys[k].next
                    }
                }
                // Plain ASCII names on both sides are equal only byte for byte.
                if node.pointee.asciiKeys, !name.nonASCII { return nil }
            }
            return decodedChild(of: n, key: key)
        }

        /// A name compared as a String (escaped, or not ASCII on one side): canonically equal names match.
        /// `mutating` though it changes nothing: a non-mutating call from `object` copied the whole scanner (144
        /// bytes, a memcpy call) for every member a node was asked about, whether or not the call was taken.
        @inline(never)
        private mutating func decodedChild(of n: Int, key: Range<Int>) -> Int? {
            var decoder = JSONLite.Reader(bytes: reader.bytes, index: key.lowerBound - 1)
            guard let text = decoder.string() else { return nil }
            return node(n).pointee.keys.first { table.keyTexts[$0] == text }.map { keys[$0].child }
        }

        private mutating func array(depth: Int, frame: Range<Int>) -> Bool {
            reader.index += 1  // [
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "]") {
                reader.index += 1
                return true
            }
            var matching = false
            for i in frame where node(active[i].node).pointee.listSlot >= 0
                || !node(active[i].node).pointee.indices.isEmpty {
                matching = true
            }
            var position = 0
            while true {
                let lower = active.count
                if matching {
                    for i in frame { element(position, of: active[i]) }
                }
                guard value(depth: depth + 1, frame: lower..<active.count) else { return false }
                active.count = lower
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
            let node = self.node(pair.node)
            let indices = node.pointee.indices
            for j in stride(from: indices.lowerBound, to: indices.upperBound, by: 2) where ints[j] == position {
                active.append((ints[j + 1], pair.base))
            }
            let (listSlot, listGroup) = (node.pointee.listSlot, node.pointee.listGroup)
            guard listSlot >= 0 else { return }
            let base = spots.count
            spots.append(Spot(), count: 1 + table.groupSlots[listGroup])
            let at = pair.base + 1 + listSlot
            if spots[at].count == 0 { spots[at].link = base } else { spots[spots[at].end].link = base }
            spots[at].count += 1
            spots[at].end = base
            active.append((table.groupRoots[listGroup], base))
        }

        /// `true`, `null` and the first four bytes of `false` as little-endian words.
        static let trueWord: UInt32 = 0x6575_7274, nullWord: UInt32 = 0x6C6C_756E, falseWord: UInt32 = 0x736C_6166

        /// A literal at the reader, as `JSONLite.Reader.literal` reads it: its first four bytes compared as one word
        /// (`false`'s fifth, an `e`, after) instead of a loop over a StaticString (a call and ~15 instructions a byte).
        @inline(__always)
        private mutating func literal(_ head: UInt32, count: Int) -> Bool {
            let i = reader.index
            guard i &+ count <= reader.bytes.count, let base = reader.bytes.baseAddress,
                  UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self)) == head,
                  count == 4 || base[i &+ 4] == UInt8(ascii: "e") else { return false }
            reader.index = i &+ count
            return true
        }

        /// What `skipString` saw in a string: escapes (its text must be decoded) and bytes of 0x80 and above.
        struct StringKind {
            var escaped = false
            var nonASCII = false
        }

        /// A string at its opening quote, as `skipString` reads it. Most names and many values are shorter than
        /// eight bytes: when the first word's first special byte is the closing quote, the string is plain and read
        /// here, without the call and loop (~150 names an HTTP call); any other goes through `skipString`.
        @inline(__always)
        private mutating func skipKey() -> StringKind? {
            let start = reader.index + 1
            if start + 8 <= reader.bytes.count, let base = reader.bytes.baseAddress {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                    | ((word &- ones &* 0x20) & ~word)) & highs
                let plain = special.trailingZeroBitCount >> 3
                if special != 0, base[start + plain] == UInt8(ascii: "\"") {
                    reader.index = start + plain + 1
                    var kind = StringKind()
                    kind.nonASCII = word & ((1 << (UInt64(plain) << 3)) &- 1) & highs != 0
                    return kind
                }
            }
            return skipString()
        }

        /// Checks a string at its opening quote as `JSONLite.Reader.string()` reads it, decoding nothing; nil when
        /// malformed. Eight bytes a step: a word's quote, backslash or control byte is found by the has-zero-byte
        /// test on the word made zero there, whose lowest flagged byte is always a true one (a borrow only flags
        /// bytes above it), so the step lands on the first special byte and the bytes before it are plain.
        private mutating func skipString() -> StringKind? {
            guard let base = reader.bytes.baseAddress else { return nil }
            let count = reader.bytes.count
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var kind = StringKind()
            var seen: UInt64 = 0  // every plain byte passed, or-ed: its high bits say whether any was non-ASCII
            var i = reader.index &+ 1  // past the opening quote; a local, kept in a register over the word loop
            while true {
                while i &+ 8 <= count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                    let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                        | ((word &- ones &* 0x20) & ~word)) & highs
                    if special == 0 {
                        seen |= word
                        i &+= 8
                        continue
                    }
                    let plain = special.trailingZeroBitCount >> 3
                    seen |= word & ((1 << (UInt64(plain) << 3)) &- 1)
                    i &+= plain
                    break
                }
                guard i < count else { return nil }
                let b = base[i]
                i &+= 1
                if b == UInt8(ascii: "\"") {
                    reader.index = i
                    kind.nonASCII = seen & highs != 0
                    return kind
                }
                if b < 0x20 { return nil }
                if b == UInt8(ascii: "\\") {
                    reader.index = i
                    guard reader.escapedScalar() != nil else { return nil }
                    i = reader.index
                    kind.escaped = true
                } else {
                    seen |= UInt64(b)
                }
            }
        }
    }
}

extension JSONScan {
    /// A growable buffer of plain values (no references inside) without Array's uniqueness checks: the scanner
    /// owns it alone for one pass and frees it at the end (`release`).
    struct Stack<Element> {
        private(set) var base: UnsafeMutablePointer<Element>
        /// Elements in use; lowering it pops them (they hold no references).
        var count = 0
        private var capacity: Int

        init(capacity: Int) {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        subscript(i: Int) -> Element {
            unsafeAddress { UnsafePointer(base + i) }
            nonmutating unsafeMutableAddress { base + i }
        }

        mutating func append(_ element: Element) {
            if count == capacity { grow(count + 1) }
            (base + count).initialize(to: element)
            count += 1
        }

        /// `n` copies of `element` at the end.
        mutating func append(_ element: Element, count n: Int) {
            if count + n > capacity { grow(count + n) }
            (base + count).initialize(repeating: element, count: n)
            count += n
        }

        private mutating func grow(_ needed: Int) {
            let bigger = Swift.max(needed, capacity * 2)
            let moved = UnsafeMutablePointer<Element>.allocate(capacity: bigger)
            moved.moveInitialize(from: base, count: count)
            base.deallocate()
            (base, capacity) = (moved, bigger)
        }

        func release() { base.deallocate() }
    }
}
