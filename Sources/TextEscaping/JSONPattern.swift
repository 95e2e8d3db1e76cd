/// The JSON paths a reader wants from a document, compiled once into a tree of keys and indices, so that `JSONScan`
/// can note where each named value lies in one pass over the bytes, with no tree of values and no String per key.
///
/// A capture (`capture`) names one value by its path. A list (`list`) names an array whose every element is read
/// with captures of its own, relative to the element (`$` is the element itself): a group. Captures are numbered
/// per group (`Slot`); a scan keeps one block of them for the document (the root group) and one per list element.
/// A reader keeps its slots and asks the scan for them after (`JSONScan.string(_:_:)` and the rest).
public struct JSONPattern: Sendable {
    /// One step of a path: an object's member by name, or an array's element by position.
    public enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// A captured value's number within its group.
    public struct Slot: Sendable, Equatable {
        let index: Int
    }

    /// The document (`root`), or the elements of one list.
    public struct Group: Sendable, Equatable {
        let id: Int
        public static let root = Group(id: 0)
    }

    /// A member name to match, its bytes compared as they stand when both sides are ASCII, else as Strings (Swift's
    /// equality, which the tree's lookup used: canonically equivalent names match).
    struct Key: Sendable {
        let bytes: [UInt8]
        let text: String
        let child: Int
    }

    struct Node: Sendable {
        let group: Int
        let parent: Int
        var keys: [Key] = []
        var indices: [(index: Int, child: Int)] = []
        /// The list read at this node: its elements' group and the slot that counts and links them.
        var list: (group: Int, slot: Int)?
        var slots: [Int] = []
        /// Every slot at or under this node in its group (the list's too): emptied when a key leads here again,
        /// since the last of an object's repeated members is the one that counts.
        var clears: [Int] = []
        /// False when a key here is not ASCII: a member name is then compared as a String.
        var asciiKeys = true
    }

    var nodes = [Node(group: 0, parent: -1)]
    /// Each group's root node and number of slots.
    var groups: [(root: Int, slots: Int)] = [(0, 0)]
    /// `nodes` laid flat for the scan (made again after each change; a pattern is built once per reader).
    private(set) var table = Table()

    /// The nodes as plain integers in a few arrays, which the scan reads through unsafe buffers: no reference
    /// counting and no array per node on the per-byte path. A class, so a scan takes the whole table with one
    /// retain (as a struct of seven arrays each scan copied it twice: 14 retains and releases a document).
    final class Table: Sendable {
        struct FlatNode: Sendable {
            var keys = 0..<0
            var indices = 0..<0
            var slots = 0..<0
            var clears = 0..<0
            var listGroup = -1
            var listSlot = -1
            var asciiKeys = true
            /// One bit per key's bucket (`filterIndex` of its first word and length): a plain member name whose
            /// bit is clear matches no key, found with one test.
            var keyFilter: UInt64 = 0
            /// Where this node's 64 buckets start in `ints` (a node with keys): per `filterIndex`, its first key
            /// (-1 for none), the rest linked by `FlatKey.next`, so a name is compared with the keys of its bucket
            /// only, not with each key of the node in turn.
            var buckets = -1
        }

        /// A member name: where its bytes lie in `keyBytes`, and its first eight bytes as one little-endian word
        /// (zeros past its end), so a name of up to eight bytes is compared with one comparison.
        struct FlatKey: Sendable {
            var bytes: Range<Int>
            var head: UInt64
            var child: Int
            /// The next key of the node in the same bucket; -1 for none.
            var next = -1
        }

        let nodes: [FlatNode]
        let keys: [FlatKey]
        let keyTexts: [String]
        let keyBytes: [UInt8]
        /// Slots and clears; indices as (position, child) pairs; the key buckets of nodes with keys.
        let ints: [Int]
        let groupRoots: [Int]
        let groupSlots: [Int]

        init(nodes: [FlatNode] = [FlatNode()], keys: [FlatKey] = [], keyTexts: [String] = [], keyBytes: [UInt8] = [],
             ints: [Int] = [], groupRoots: [Int] = [0], groupSlots: [Int] = [0]) {
            (self.nodes, self.keys, self.keyTexts, self.keyBytes) = (nodes, keys, keyTexts, keyBytes)
            (self.ints, self.groupRoots, self.groupSlots) = (ints, groupRoots, groupSlots)
        }

        /// The first `min(count, 8)` bytes at `start` as a little-endian word, zeros after.
        @inline(__always)
        static func head(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64 {
            if start + 8 <= bytes.count, let base = bytes.baseAddress {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
                return count >= 8 ? word : word & ((1 << (UInt64(count) << 3)) &- 1)
            }
            var word: UInt64 = 0
            for i in 0..<min(count, 8) { word |= UInt64(bytes[start + i]) << (UInt64(i) << 3) }
            return word
        }

        /// A name's bucket (0 to 63) and bit in `FlatNode.keyFilter`: its first word and length, hashed.
        @inline(__always)
        static func filterIndex(head: UInt64, count: Int) -> Int {
            Int(truncatingIfNeeded: ((head ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        }
    }

    public init() {}

    private mutating func flatten() {
        var flatNodes: [Table.FlatNode] = [], keys: [Table.FlatKey] = [], keyTexts: [String] = []
        var keyBytes: [UInt8] = [], ints: [Int] = []
        for node in nodes {
            var flat = Table.FlatNode()
            let keyStart = keys.count
            for key in node.keys {
                let head = key.bytes.withUnsafeBufferPointer { Table.head($0, 0, $0.count) }
                keys.append(Table.FlatKey(bytes: keyBytes.count..<(keyBytes.count + key.bytes.count), head: head,
                                          child: key.child))
                keyTexts.append(key.text)
                keyBytes += key.bytes
            }
            flat.keys = keyStart..<keys.count
            if !node.keys.isEmpty {
                flat.buckets = ints.count
                ints += repeatElement(-1, count: 64)
                for k in flat.keys {
                    let bucket = Table.filterIndex(head: keys[k].head, count: keys[k].bytes.count)
                    flat.keyFilter |= 1 << UInt64(bucket)
                    keys[k].next = ints[flat.buckets + bucket]
                    ints[flat.buckets + bucket] = k
                }
            }
            let indexStart = ints.count
            for entry in node.indices { ints += [entry.index, entry.child] }
            flat.indices = indexStart..<ints.count
            flat.slots = ints.count..<(ints.count + node.slots.count)
            ints += node.slots
            flat.clears = ints.count..<(ints.count + node.clears.count)
            ints += node.clears
            (flat.listGroup, flat.listSlot) = (node.list?.group ?? -1, node.list?.slot ?? -1)
            flat.asciiKeys = node.asciiKeys
            flatNodes.append(flat)
        }
        table = Table(nodes: flatNodes, keys: keys, keyTexts: keyTexts, keyBytes: keyBytes, ints: ints,
                      groupRoots: groups.map(\.root), groupSlots: groups.map(\.slots))
    }

    /// A slot for the value at `path` (relative to the group's element, or the document for `.root`).
    public mutating func capture(_ path: [Step], in group: Group = .root) -> Slot {
        let node = self.node(path, in: group)
        let slot = newSlot(at: node)
        nodes[node].slots.append(slot)
        flatten()
        return Slot(index: slot)
    }

    /// A list at `path`: its slot (the array itself, as a capture's) and the group its elements are read in. The
    /// same path asked twice gives the same list.
    public mutating func list(_ path: [Step], in group: Group = .root) -> (slot: Slot, elements: Group) {
        let node = self.node(path, in: group)
        if let list = nodes[node].list { return (Slot(index: list.slot), Group(id: list.group)) }
        let slot = newSlot(at: node)
        let elements = groups.count
        nodes.append(Node(group: elements, parent: -1))
        groups.append((nodes.count - 1, 0))
        nodes[node].list = (elements, slot)
        flatten()
        return (Slot(index: slot), Group(id: elements))
    }

    private mutating func newSlot(at node: Int) -> Int {
        let group = nodes[node].group
        let slot = groups[group].slots
        groups[group].slots += 1
        var n = node
        while n >= 0 {
            nodes[n].clears.append(slot)
            n = nodes[n].parent
        }
        return slot
    }

    private mutating func node(_ path: [Step], in group: Group) -> Int {
        var node = groups[group.id].root
        for step in path {
            switch step {
            case .key(let name):
                if let key = nodes[node].keys.first(where: { $0.text == name }) {
                    node = key.child
                    continue
                }
                let child = add(under: node)
                nodes[node].keys.append(Key(bytes: Array(name.utf8), text: name, child: child))
                if name.utf8.contains(where: { $0 >= 0x80 }) { nodes[node].asciiKeys = false }
                node = child
            case .index(let i):
                if let found = nodes[node].indices.first(where: { $0.index == i }) {
                    node = found.child
                    continue
                }
                let child = add(under: node)
                nodes[node].indices.append((i, child))
                node = child
            }
        }
        return node
    }

    private mutating func add(under parent: Int) -> Int {
        nodes.append(Node(group: nodes[parent].group, parent: parent))
        return nodes.count - 1
    }
}
