extension JSONLite.Value {
    /// The value as JSON text again: how the part of a socket reply that stands for an HTTP body (`reply.body`)
    /// goes to the same reader as an HTTP answer. Keys come out sorted; integral numbers without a fraction.
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return JSONText.quote(s)
        case .number(let d):
            if let i = intValue { return String(i) }
            return d.isFinite ? String(d) : "null"
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.sortedKeys.map { JSONText.quote($0) + ":" + fields[$0]!.text }
                .joined(separator: ",") + "}"
        }
    }
}
