import CLibyaml

/// Turns YAML text into a `YAMLNode` tree through libyaml's event parser.
///
/// Syntax errors stop parsing (libyaml cannot recover) and carry libyaml's own problem text and position.
/// Duplicate keys do not stop it: they are collected so the loader can report them with everything else.
public enum YAMLParser {
    /// Deepest nesting accepted; a scenario needs about five levels, so this only stops pathological input
    /// from exhausting the stack.
    static let maximumDepth = 128
    /// Most nodes one document may expand to through aliases ("billion laughs" protection).
    static let maximumNodes = 1_000_000

    /// Parses one YAML document. Any problem, including a duplicate key, is thrown.
    public static func parse(_ text: String, file: String = "<string>") throws(ScenarioErrors) -> YAMLNode {
        let result = parse(bytes: Array(text.utf8), file: file)
        if !result.errors.isEmpty { throw ScenarioErrors(result.errors) }
        guard let root = result.root else {
            throw ScenarioErrors([ScenarioError(file: file, line: 1, column: 1, message: "the document is empty")])
        }
        return root
    }

    /// Parses one YAML document, returning what it could build and every problem found.
    /// `root` is nil after a syntax error or for an empty document.
    static func parse(bytes: [UInt8], file: String) -> (root: YAMLNode?, errors: [ScenarioError]) {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else {
            return (nil, [ScenarioError(file: file, mark: .none, message: "could not initialise the YAML parser")])
        }
        defer { yaml_parser_delete(parser) }

        return bytes.withUnsafeBufferPointer { buffer in
            // libyaml reads from the buffer lazily, so it must stay alive for the whole parse: it does here.
            yaml_parser_set_input_string(parser, buffer.baseAddress ?? UnsafePointer(bitPattern: 1), buffer.count)
            var builder = TreeBuilder(parser: parser, file: file)
            let root = builder.document()
            return (root, builder.errors)
        }
    }
}

/// Thrown inside the builder to unwind after a problem that ends parsing.
private struct StopParsing: Error {}

/// Builds the tree by recursive descent over libyaml's events.
private struct TreeBuilder {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let file: String
    var errors: [ScenarioError] = []
    var anchors: [String: YAMLNode] = [:]
    var expandedNodes = 0

    init(parser: UnsafeMutablePointer<yaml_parser_t>, file: String) {
        self.parser = parser
        self.file = file
    }

    /// The single document in the stream, or nil if it is empty or a fatal problem was recorded.
    mutating func document() -> YAMLNode? {
        do {
            var event = try next()
            defer { yaml_event_delete(&event) }
            guard event.type == YAML_STREAM_START_EVENT else { return nil }
            var start = try next()
            defer { yaml_event_delete(&start) }
            if start.type == YAML_STREAM_END_EVENT { return nil }
            guard start.type == YAML_DOCUMENT_START_EVENT else { return nil }
            var first = try next()
            defer { yaml_event_delete(&first) }
            let root = try node(from: &first, depth: 0)
            var end = try next()
            defer { yaml_event_delete(&end) }
            if end.type != YAML_DOCUMENT_END_EVENT { return nil }
            var more = try next()
            defer { yaml_event_delete(&more) }
            if more.type == YAML_DOCUMENT_START_EVENT {
                fail(at: more.start_mark, "a scenario file holds one YAML document; remove the second '---'")
                return nil
            }
            return root
        } catch {
            return nil
        }
    }

    /// Builds the node that starts with `event`, consuming its children and its end event.
    private mutating func node(from event: inout yaml_event_t, depth: Int) throws(StopParsing) -> YAMLNode {
        let mark = Self.mark(event.start_mark)
        if depth > YAMLParser.maximumDepth {
            fail(at: event.start_mark, "the document is nested more than \(YAMLParser.maximumDepth) levels deep")
            throw StopParsing()
        }
        let built: YAMLNode
        let anchor: String?
        switch event.type {
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            anchor = Self.string(data.anchor)
            built = .scalar(text, style: Self.style(data.style), tag: Self.string(data.tag), mark: mark)
            try count(1, at: event.start_mark)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor) ?? ""
            guard let target = anchors[name] else {
                fail(at: event.start_mark, "alias '*\(name)' has no anchor '&\(name)' defined before it")
                throw StopParsing()
            }
            try count(target.nodeCount, at: event.start_mark)
            return target
        case YAML_SEQUENCE_START_EVENT:
            anchor = Self.string(event.data.sequence_start.anchor)
            try count(1, at: event.start_mark)
            var items: [YAMLNode] = []
            while true {
                var child = try next()
                defer { yaml_event_delete(&child) }
                if child.type == YAML_SEQUENCE_END_EVENT { break }
                items.append(try node(from: &child, depth: depth + 1))
            }
            built = .sequence(items, mark: mark)
        case YAML_MAPPING_START_EVENT:
            anchor = Self.string(event.data.mapping_start.anchor)
            try count(1, at: event.start_mark)
            built = .mapping(try pairs(depth: depth), mark: mark)
        default:
            fail(at: event.start_mark, "unexpected YAML event \(event.type.rawValue)")
            throw StopParsing()
        }
        if let anchor { anchors[anchor] = built }
        return built
    }

    /// Reads key/value pairs up to the mapping end event, dropping (and reporting) repeated keys.
    private mutating func pairs(depth: Int) throws(StopParsing) -> [YAMLNode.Pair] {
        var pairs: [YAMLNode.Pair] = []
        var seen: [String: Mark] = [:]
        while true {
            var keyEvent = try next()
            defer { yaml_event_delete(&keyEvent) }
            if keyEvent.type == YAML_MAPPING_END_EVENT { return pairs }
            let key = try node(from: &keyEvent, depth: depth + 1)
            var valueEvent = try next()
            defer { yaml_event_delete(&valueEvent) }
            let value = try node(from: &valueEvent, depth: depth + 1)
            if let text = key.scalarText {
                if let first = seen[text] {
                    errors.append(ScenarioError(
                        file: file, mark: key.mark,
                        message: "duplicate key '\(text)' (first defined at line \(first.line)); remove one of them"
                    ))
                    continue
                }
                seen[text] = key.mark
            }
            pairs.append(YAMLNode.Pair(key: key, value: value))
        }
    }

    /// The next event, or a recorded syntax error.
    private mutating func next() throws(StopParsing) -> yaml_event_t {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else {
            recordSyntaxError()
            throw StopParsing()
        }
        return event
    }

    private mutating func count(_ nodes: Int, at mark: yaml_mark_t) throws(StopParsing) {
        expandedNodes += nodes
        if expandedNodes > YAMLParser.maximumNodes {
            fail(at: mark, "the document expands to more than \(YAMLParser.maximumNodes) nodes through aliases")
            throw StopParsing()
        }
    }

    private mutating func recordSyntaxError() {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown problem"
        var message = "invalid YAML: \(problem)"
        if let context = state.context.map({ String(cString: $0) }) {
            let where_ = Self.mark(state.context_mark)
            message += " (\(context) at line \(where_.line), column \(where_.column))"
        }
        errors.append(ScenarioError(file: file, mark: Self.mark(state.problem_mark), message: message))
    }

    private mutating func fail(at mark: yaml_mark_t, _ message: String) {
        errors.append(ScenarioError(file: file, mark: Self.mark(mark), message: message))
    }

    private static func mark(_ mark: yaml_mark_t) -> Mark {
        Mark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLNode.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
