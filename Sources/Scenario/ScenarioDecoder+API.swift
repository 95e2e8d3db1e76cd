/// `target.api`: the operation mapping for a team's own call server.
extension ScenarioDecoder {
    mutating func api(_ node: YAMLNode) -> APIMapping? {
        guard let fields = fields(of: node, in: "'target.api'",
                                  known: APIMapping.operations + ["push", "view", "already_ended", "socket",
                                                                   "trace_header"],
                                  required: Self.socketActionsEnd(node) ? ["register", "start"]
                                      : ["register", "start", "end"]) else { return nil }
        var endpoints: [String: APIMapping.Endpoint] = [:]
        var used: [(mark: Mark, name: String)] = []
        for op in APIMapping.operations {
            if let value = fields[op], let endpoint = endpoint(value, op, &used) { endpoints[op] = endpoint }
        }
        let captured = Set(endpoints.values.flatMap(\.captures.keys))
        checkKnownVariables(used, captured: captured)
        var mapping = APIMapping(endpoints: endpoints)
        if let node = fields["socket"] {
            var socketUsed: [(mark: Mark, name: String)] = []
            mapping.socket = socket(node, &socketUsed)
            checkKnownVariables(socketUsed, captured: captured.union(["request.id"]))
        }
        if let node = fields["push"], let push = pushFields(node) { mapping.push = push }
        if let node = fields["view"] { mapping.view = viewMapping(node) }
        if let node = fields["already_ended"] {
            let items: [YAMLNode]
            if case .sequence(let list, _) = node { items = list } else { items = [node] }
            mapping.alreadyEnded = items.compactMap { integer($0, "already_ended", atLeast: 100) }
        }
        if let node = fields["trace_header"], let name = string(node, "target.api.trace_header") {
            mapping.traceHeader = name == "off" ? nil : headerName(node, name, "target.api.trace_header")
        }
        // Kept even when it has mistakes, so flow steps it does not map are reported in the same pass.
        return mapping
    }

    /// Every action the mix's flows perform needs an endpoint on the team's server.
    mutating func checkMappedOperations(_ root: YAMLNode, _ flows: [Flow]) {
        guard let api else { return }
        let mark = Self.topLevelValue(root, "target")?.mark ?? Mark(line: 1, column: 1)
        for flow in flows {
            for step in flow.allSteps {
                guard let op = Self.operation(of: step.kind) else { continue }
                // An operation mapped only over the socket is mapped (its `expect` is then any success).
                let mapped = { (op: String) in api.endpoints[op] != nil || api.socket?.actions[op] != nil }
                let satisfied = mapped(op) || (op == "decline" && mapped("end"))
                if !satisfied {
                    report(mark, "flow '\(flow.name)' step '\(step.name)' needs 'target.api.\(op)'")
                }
            }
        }
    }

    /// Whether `target.api` maps `end` over the socket (`socket.actions.end`), so no HTTP `end` is required.
    static func socketActionsEnd(_ api: YAMLNode) -> Bool {
        guard let socket = topLevelValue(api, "socket"), let actions = topLevelValue(socket, "actions") else {
            return false
        }
        return topLevelValue(actions, "end") != nil
    }

    /// Every `${name}` must be built in or captured by some endpoint of the mapping.
    private mutating func checkKnownVariables(_ used: [(mark: Mark, name: String)], captured: Set<String>) {
        let known = Set(Self.templateVariables).union(captured)
        for (mark, name) in used where !known.contains(name) {
            report(mark, "unknown variable '${\(name)}': neither built in nor captured by any endpoint",
                   suggestion: Suggestion.closest(to: name, among: Array(known)))
        }
    }

    private mutating func endpoint(_ node: YAMLNode, _ op: String, _ used: inout [(mark: Mark, name: String)])
        -> APIMapping.Endpoint? {
        let context = "'target.api.\(op)'"
        guard let f = fields(of: node, in: context, known: ["method", "path", "headers", "body", "expect", "capture"],
                             required: ["method", "path"]) else { return nil }
        guard let methodNode = f["method"], let method = string(methodNode, "method"),
              let pathNode = f["path"], let path = string(pathNode, "path") else { return nil }
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        if !methods.contains(method) {
            report(methodNode.mark, "'method' must be one of \(methods.joined(separator: ", ")), got '\(method)'",
                   suggestion: Suggestion.closest(to: method.uppercased(), among: methods))
        }
        if !path.hasPrefix("/") { report(pathNode.mark, "'path' must start with '/', got '\(path)'") }
        checkVariables(pathNode, path, &used)
        var endpoint = APIMapping.Endpoint(method: method, path: path)
        if let n = f["headers"] {
            if case .mapping(let pairs, _) = n {
                for pair in pairs {
                    guard let name = pair.key.scalarText, let value = pair.value.scalarText else {
                        report(pair.key.mark, "headers are 'Name: value' pairs")
                        continue
                    }
                    checkVariables(pair.value, value, &used)
                    endpoint.headers.append("\(name): \(value)")
                }
            } else {
                report(n.mark, "expected 'headers' as a mapping of header names to values")
            }
        }
        if let n = f["body"], let body = string(n, "body") {
            checkVariables(n, body, &used)
            endpoint.body = body
        }
        if let n = f["expect"] {
            let items: [YAMLNode]
            if case .sequence(let list, _) = n { items = list } else { items = [n] }
            for item in items {
                if let code = integer(item, "expect", atLeast: 100) {
                    if code > 599 { report(item.mark, "'expect' takes HTTP statuses 100…599, got \(code)") }
                    endpoint.expect.append(code)
                }
            }
        }
        if let n = f["capture"] {
            guard case .mapping(let pairs, _) = n else {
                report(n.mark, "expected 'capture' as a mapping of variable names to JSON paths like \"$.id\"")
                return endpoint
            }
            for pair in pairs {
                guard let name = pair.key.scalarText else { continue }
                if let path = jsonPath(pair.value, name) { endpoint.captures[name] = path }
            }
        }
        return endpoint
    }

    mutating func jsonPath(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = string(node, what) else { return nil }
        guard JSONPath(text) != nil else {
            report(node.mark, "'\(what)' must be a JSON path like \"$.call.id\" or \"$.items[0].id\", got '\(text)'")
            return nil
        }
        return text
    }

    mutating func stringList(_ node: YAMLNode, _ what: String) -> [String]? {
        if let single = node.scalarText { return [single] }
        guard case .sequence(let items, _) = node else {
            report(node.mark, "expected '\(what)' as a list of strings")
            return nil
        }
        return items.compactMap { string($0, what) }
    }

    static let templateVariables = [
        "device.id", "device.handle", "device.name", "device.token", "device.handle.json", "device.time",
        "device.reported_at", "to.id", "to.handle", "to.handles", "to.ids", "conversation.id", "with.id",
        "member.id", "member.handle", "reason", "reason.json", "video", "capabilities", "push.sent_at",
        "user.id",
    ]

    /// Reports `${…}` names that are neither built in nor plausibly captured (captures are dotted or plain words).
    mutating func checkVariables(_ node: YAMLNode, _ text: String,
                                         _ used: inout [(mark: Mark, name: String)]) {
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let after = rest.index(after: dollar)
            guard after < rest.endIndex, rest[after] == "{" else {
                rest = rest[after...]
                continue
            }
            let start = rest.index(after: after)
            guard let close = rest[start...].firstIndex(of: "}") else {
                report(node.mark, "unclosed '${' in '\(text)'")
                return
            }
            let name = String(rest[start..<close])
            if name.isEmpty || name.contains(where: { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") }) {
                report(node.mark, "'${\(name)}' is not a variable name",
                       suggestion: Suggestion.closest(to: name, among: Self.templateVariables))
            } else {
                used.append((node.mark, name))
            }
            rest = rest[rest.index(after: close)...]
        }
    }
}

/// A minimal JSON path: `$`, then `.key` or `[index]` steps.
public struct JSONPath: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    public let steps: [Step]

    public init?(_ text: String) {
        guard text.hasPrefix("$") else { return nil }
        var steps: [Step] = []
        var rest = text.dropFirst()
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                guard !key.isEmpty else { return nil }
                steps.append(.key(String(key)))
                rest = rest.dropFirst(key.count)
            } else if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), let i = Int(rest[rest.index(after: rest.startIndex)..<close])
                else { return nil }
                steps.append(.index(i))
                rest = rest[rest.index(after: close)...]
            } else {
                return nil
            }
        }
        self.steps = steps
    }

    /// The value at this path in a decoded JSON value (from JSONSerialization), as text when it is a scalar.
    public func string(in json: Any) -> String? {
        var current: Any = json
        for step in steps {
            switch step {
            case .key(let k):
                guard let dict = current as? [String: Any], let next = dict[k] else { return nil }
                current = next
            case .index(let i):
                guard let array = current as? [Any], i >= 0, i < array.count else { return nil }
                current = array[i]
            }
        }
        if let s = current as? String { return s }
        if let n = current as? Int { return String(n) }
        if let b = current as? Bool { return String(b) }
        if let d = current as? Double { return String(d) }
        return nil
    }
}
