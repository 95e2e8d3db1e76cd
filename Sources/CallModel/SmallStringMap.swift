/// A map from strings to values for the handful of entries a device or a call holds at once: its conversations
/// by UUID, what it noted of each, a flow's conversations by name. Keys are compared in insertion order, not hashed.
///
/// Why not a `Dictionary`: a conversation UUID (36 bytes) is hashed in full at every lookup and store (SipHash,
/// several hundred instructions), and a device or call holds one to three entries; the dictionaries of a SIP call
/// cost ~20 k instructions (issue 33, round three), most of it hashing and storage that a linear scan of one or
/// two keys (`==` on the same string storage is one comparison of its bits) does not pay. `removeAll` keeps the
/// arrays' capacity, so a device going idle and taking the next call allocates nothing.
///
/// Iteration is in insertion order (a removal keeps the order of the rest), where a dictionary's order varied
/// from process to process. Lookups are linear: for a few entries, never for an unbounded table.
public struct SmallStringMap<Value> {
    @usableFromInline var keyList: [String] = []
    /// The values, at the index of their key (`index(forKey:)`); changed in place through `modify(at:)`.
    @usableFromInline var valueList: [Value] = []

    @inlinable public var keys: [String] { keyList }
    @inlinable public var values: [Value] { valueList }

    @inlinable public init() {}

    @inlinable public var count: Int { keyList.count }
    @inlinable public var isEmpty: Bool { keyList.isEmpty }

    /// The position of `key` in `keys` and `values`; nil when absent.
    @inlinable public func index(forKey key: String) -> Int? {
        keyList.withUnsafeBufferPointer { k in
            for i in k.indices where k[i] == key { return i }
            return nil
        }
    }

    /// The value for `key`; setting nil removes it, setting a value for a new key appends it.
    @inlinable public subscript(key: String) -> Value? {
        get { index(forKey: key).map { valueList[$0] } }
        set {
            if let i = index(forKey: key) {
                if let newValue { valueList[i] = newValue } else { remove(at: i) }
            } else if let newValue {
                keyList.append(key)
                valueList.append(newValue)
            }
        }
    }

    /// The value for `key`, or `defaultValue` (stored on a write) when absent.
    @inlinable public subscript(key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        set { self[key] = newValue }
    }

    /// Changes the value at `i` in place (no copy out and back).
    @inlinable public mutating func modify<R>(at i: Int, _ change: (inout Value) -> R) -> R {
        change(&valueList[i])
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let i = index(forKey: key) else { return nil }
        let value = valueList[i]
        remove(at: i)
        return value
    }

    @usableFromInline mutating func remove(at i: Int) {
        keyList.remove(at: i)
        valueList.remove(at: i)
    }

    /// Empties the map and keeps its storage for the next entries.
    @inlinable public mutating func removeAll() {
        keyList.removeAll(keepingCapacity: true)
        valueList.removeAll(keepingCapacity: true)
    }
}

extension SmallStringMap: Sendable where Value: Sendable {}

extension SmallStringMap: Sequence {
    /// The entries in insertion order, labelled as a dictionary's.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let map: SmallStringMap
        @usableFromInline var position = 0

        @inlinable init(_ map: SmallStringMap) { self.map = map }

        @inlinable public mutating func next() -> (key: String, value: Value)? {
            guard position < map.keyList.count else { return nil }
            defer { position += 1 }
            return (map.keyList[position], map.valueList[position])
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(self) }
    @inlinable public var underestimatedCount: Int { keyList.count }
}

extension SmallStringMap: Equatable where Value: Equatable {
    /// The same keys with equal values, in any order (as two dictionaries compare).
    public static func == (a: Self, b: Self) -> Bool {
        guard a.count == b.count else { return false }
        for (i, key) in a.keys.enumerated() {
            guard let j = b.index(forKey: key), a.values[i] == b.values[j] else { return false }
        }
        return true
    }
}

extension SmallStringMap: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }
}

extension SmallStringMap: CustomStringConvertible {
    public var description: String {
        "[" + zip(keys, values).map { "\"\($0)\": \($1)" }.joined(separator: ", ") + "]"
    }
}
