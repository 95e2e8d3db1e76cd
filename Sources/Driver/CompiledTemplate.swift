/// A `${name}` template cut once into literal bytes and named slots: rendering appends the literals and looks up
/// each slot's value, with no scan for `$` and no name read again (the templates of `target.api` are fixed for the
/// run; each request of each call renders three or four of them). Same result as `TargetAPI.render`: a `$` not
/// opening a closed `${…}` is literal text, a name with no value renders empty and is listed in `missing`.
struct CompiledTemplate: Sendable {
    enum Part: Sendable {
        case text([UInt8])
        /// A name; `known` is its slot when callstorm fills it.
        case slot(String, known: TemplateVars.Name?)
    }

    let parts: [Part]
    /// The template itself when it has no slot: rendered without copying.
    private let plain: String?
    /// Bytes of literal text in all: the output's size before the values.
    private let literalCount: Int

    init(_ template: String) {
        let bytes = Array(template.utf8)
        var parts: [Part] = []
        var text: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "$"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{"),
               let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) {
                if !text.isEmpty { parts.append(.text(text)) }
                text = []
                let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                parts.append(.slot(name, known: TemplateVars.Name.byText[name]))
                i = close + 1
            } else {
                text.append(bytes[i])
                i += 1
            }
        }
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
        plain = parts.contains { if case .slot = $0 { true } else { false } } ? nil : template
        literalCount = parts.reduce(0) { if case .text(let t) = $1 { $0 + t.count } else { $0 } }
    }

    func render(_ vars: TemplateVars, _ missing: inout [String]) -> String {
        if let plain { return plain }
        var out: [UInt8] = []
        out.reserveCapacity(literalCount + 64)
        for part in parts {
            switch part {
            case .text(let bytes): out.append(contentsOf: bytes)
            case .slot(let name, let known):
                let value: String?
                if let known { value = vars[known] } else { value = vars[name] }
                if let value {
                    out.append(contentsOf: value.utf8)
                } else {
                    missing.append(name)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
