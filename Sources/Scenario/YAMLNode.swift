/// A YAML document as a tree of positioned nodes.
///
/// We keep our own tree rather than libyaml's document API because validation needs the mark of every key and
/// value, ordered mapping pairs (the order of `mix` entries decides flow indices), and duplicate-key detection,
/// none of which a dictionary-shaped decoder keeps. Aliases are already resolved: an alias appears as a copy of
/// the node its anchor names.
public enum YAMLNode: Sendable, Equatable {
    /// A scalar as written. The text is never interpreted here; the loader decides what it means in context.
    case scalar(String, style: ScalarStyle, tag: String?, mark: Mark)
    /// A sequence, block (`- a`) or flow (`[a, b]`).
    case sequence([YAMLNode], mark: Mark)
    /// A mapping in source order, block or flow (`{ a: 1 }`). Keys are unique (the parser rejects duplicates).
    case mapping([Pair], mark: Mark)

    /// One key and its value in a mapping.
    public struct Pair: Sendable, Equatable {
        public var key: YAMLNode
        public var value: YAMLNode

        public init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    /// How a scalar was written; quoting tells the user meant a string, which matters for `null`-like text.
    public enum ScalarStyle: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded

        /// True for any style other than plain, i.e. the author explicitly wrote a string.
        public var isQuoted: Bool { self != .plain }
    }

    /// Where the node starts in the source.
    public var mark: Mark {
        switch self {
        case .scalar(_, _, _, let mark), .sequence(_, let mark), .mapping(_, let mark):
            return mark
        }
    }

    /// The scalar's text, or nil for a collection.
    public var scalarText: String? {
        if case .scalar(let text, _, _, _) = self { return text }
        return nil
    }

    /// True for a plain, untagged scalar that YAML reads as null (`~`, `null`, or nothing at all).
    public var isNull: Bool {
        guard case .scalar(let text, .plain, nil, _) = self else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// A short name for the node's kind, for messages such as "expected a mapping, got a sequence".
    public var kindDescription: String {
        switch self {
        case .scalar(let text, _, _, _): return isNull ? "nothing" : "'\(text)'"
        case .sequence(let items, _): return items.isEmpty ? "an empty sequence" : "a sequence"
        case .mapping(let pairs, _): return pairs.isEmpty ? "an empty mapping" : "a mapping"
        }
    }

    /// Number of nodes in this tree, counting every alias expansion; used to bound alias bombs.
    var nodeCount: Int {
        switch self {
        case .scalar: return 1
        case .sequence(let items, _): return items.reduce(1) { $0 + $1.nodeCount }
        case .mapping(let pairs, _): return pairs.reduce(1) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }
}
