import TextEscaping

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

    /// `prefix` (a base URL before a path), then the template with its slots filled: one String written in place
    /// at its final size, after a first pass over the slots sizes it (the byte array it was built in, then copied
    /// into a String, and the base URL joined after, were three allocations a template, issue 33).
    func render(_ vars: TemplateVars, _ missing: inout [String], after prefix: String = "") -> String {
        if let plain { return prefix.isEmpty ? plain : prefix + plain }
        var count = literalCount + prefix.utf8.count
        for case .slot(let name, let known) in parts {
            if let value = Self.value(name, known, vars) { count += value.utf8.count } else { missing.append(name) }
        }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var at = 0
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                let end = min(at + bytes.count, buffer.count)  // never past the size the first pass gave
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<end])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[..<(end - at)]))
                at = end
            }
            TextBytes.withUTF8(prefix, put)
            for part in parts {
                switch part {
                case .text(let bytes): bytes.withUnsafeBufferPointer(put)
                case .slot(let name, let known):
                    if let value = Self.value(name, known, vars) { TextBytes.withUTF8(value, put) }
                }
            }
            return at
        }
    }

    @inline(__always)
    private static func value(_ name: String, _ known: TemplateVars.Name?, _ vars: TemplateVars) -> String? {
        if let known { vars[known] } else { vars[name] }
    }
}
