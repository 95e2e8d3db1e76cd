import CallModel
import Quantities

/// Walks a parsed YAML tree and turns it into scenario values, recording every problem instead of stopping at
/// the first. Each helper returns nil after recording why, so callers simply skip what could not be read.
struct ScenarioDecoder {
    let file: String
    var errors: [ScenarioError] = []
    /// `target.api`, when the scenario drives a server of its own API shape.
    var api: APIMapping?
    /// `target.bugs`, for the embedded target.
    var targetBugs: [String] = []
    /// `target.process`: run the reference target as a child process (so target faults can kill it).
    var targetProcess = false
    /// `target.url`: a server callstorm did not start (no hooks into it, such as dropping its sockets).
    var targetIsURL = false
    /// `target.ca`, resolved and checked readable.
    var targetCA: String?
    /// `target.client`.
    var targetClient: TargetClient = .standard
    /// `target.sip`, when SIP devices drive a SIP server.
    var sip: SIPTargetSpec?
    /// `target.policy`, when the scenario declares one.
    var targetPolicy: ServerPolicy?
    /// Where socket faults were written, for the check that the devices hold sockets (`checkSocketFaults`).
    var socketFaultMarks: [(mark: Mark, name: String)] = []
    /// The roles socket faults name, checked against the flows' roles at the end.
    var socketFaultRoleMarks: [(mark: Mark, name: String)] = []

    init(file: String) {
        self.file = file
    }

    /// The keys of one mapping, after unknown, unsupported and missing keys were reported.
    struct Fields {
        let mark: Mark
        /// Value of each key that is present and not null, by key text.
        var values: [String: YAMLNode]
        /// Keys in source order, for mappings whose order matters (`mix`).
        var pairs: [(key: YAMLNode, value: YAMLNode)]

        subscript(_ key: String) -> YAMLNode? { values[key] }
    }

    // MARK: - Reporting

    mutating func report(_ mark: Mark, _ message: String, suggestion: String? = nil) {
        errors.append(ScenarioError(file: file, mark: mark, message: message, suggestion: suggestion))
    }

    // MARK: - Mappings

    /// Checks that `node` is a mapping whose keys are all in `known`. Keys in `unsupported` are names the design
    /// reserves but this version does not implement: they are rejected with that reason rather than as typos.
    /// A null value counts as absent, so an optional key can be written empty to mean "the default".
    mutating func fields(
        of node: YAMLNode, in context: String, known: [String], required: [String] = [],
        unsupported: Set<String> = []
    ) -> Fields? {
        guard case .mapping(let pairs, let mark) = node else {
            report(node.mark, "expected a mapping for \(context) (keys: \(known.joined(separator: ", "))), "
                + "got \(node.kindDescription)")
            return nil
        }
        var fields = Fields(mark: mark, values: [:], pairs: [])
        var suggested: Set<String> = []
        for pair in pairs {
            guard let key = pair.key.scalarText else {
                report(pair.key.mark, "keys in \(context) must be plain words, got \(pair.key.kindDescription)")
                continue
            }
            if key == "<<" {
                report(pair.key.mark, "YAML merge keys ('<<') are not supported; write the keys out")
                continue
            }
            if unsupported.contains(key) {
                report(pair.key.mark, "'\(key)' in \(context) is not supported yet; remove it")
                continue
            }
            guard known.contains(key) else {
                let suggestion = Suggestion.closest(to: key, among: known.filter { fields.values[$0] == nil })
                    ?? Suggestion.closest(to: key, among: known)
                if let suggestion { suggested.insert(suggestion) }
                let list = suggestion == nil ? "; expected one of: \(known.joined(separator: ", "))" : ""
                report(pair.key.mark, "unknown key '\(key)' in \(context)\(list)", suggestion: suggestion)
                continue
            }
            if pair.value.isNull {
                if required.contains(key) { report(pair.value.mark, "'\(key)' in \(context) needs a value") }
                continue
            }
            fields.values[key] = pair.value
            fields.pairs.append((pair.key, pair.value))
        }
        // A misspelt required key was already reported with its correction; saying it is missing too is noise.
        for key in required where fields.values[key] == nil && !suggested.contains(key) {
            let hasNullValue = pairs.contains { $0.key.scalarText == key }
            if !hasNullValue { report(mark, "\(context) is missing the required key '\(key)'") }
        }
        return fields
    }

    /// A mapping with exactly one key out of `choices`, such as a load stage (`hold` or `ramp`) or a distribution.
    mutating func choice(of node: YAMLNode, in context: String, choices: [String]) -> (String, YAMLNode)? {
        let list = choices.map { "'\($0)'" }.joined(separator: ", ")
        guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
            report(node.mark, "expected \(context) to be a mapping with one of \(list), got \(node.kindDescription)")
            return nil
        }
        if pairs.count == 1, let key = pairs[0].key.scalarText, choices.contains(key), pairs[0].value.isNull {
            report(pairs[0].key.mark, "'\(key)' in \(context) needs a value")
            return nil
        }
        let errorsBefore = errors.count
        guard let fields = fields(of: node, in: context, known: choices) else { return nil }
        guard fields.pairs.count == 1, let (key, value) = fields.pairs.first.map({ ($0.key, $0.value) }) else {
            if fields.pairs.count > 1 {
                report(node.mark, "\(context) takes exactly one of \(list), got "
                    + fields.pairs.compactMap { $0.key.scalarText }.map { "'\($0)'" }.joined(separator: " and "))
            } else if errors.count == errorsBefore {
                report(node.mark, "\(context) needs a value for \(list)")
            }
            return nil
        }
        return (key.scalarText ?? "", value)
    }

    // MARK: - Scalars

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = node.scalarText else {
            report(node.mark, "expected a string for '\(what)', got \(node.kindDescription)")
            return nil
        }
        return text
    }

    mutating func integer(_ node: YAMLNode, _ what: String, atLeast minimum: Int) -> Int? {
        guard let text = string(node, what) else { return nil }
        guard let value = Int(text.trimmingSpaces) else {
            report(node.mark, "expected a whole number for '\(what)', got '\(text)'")
            return nil
        }
        guard value >= minimum else {
            report(node.mark, "'\(what)' must be at least \(minimum), got \(value)")
            return nil
        }
        return value
    }

    mutating func unsigned(_ node: YAMLNode, _ what: String) -> UInt64? {
        guard let text = string(node, what) else { return nil }
        guard let value = UInt64(text.trimmingSpaces) else {
            let range = "between 0 and \(UInt64.max)"
            report(node.mark, "'\(what)' must be a non-negative whole number (\(range)), got '\(text)'")
            return nil
        }
        return value
    }

    /// A finite real number greater than 0 (or at least 0 when `allowZero`).
    mutating func number(_ node: YAMLNode, _ what: String, allowZero: Bool = false) -> Double? {
        guard let text = string(node, what) else { return nil }
        guard let value = Double(text.trimmingSpaces), value.isFinite else {
            report(node.mark, "expected a number for '\(what)', got '\(text)'")
            return nil
        }
        guard allowZero ? value >= 0 : value > 0 else {
            report(node.mark, "'\(what)' must be \(allowZero ? "0 or more" : "greater than 0"), got '\(text)'")
            return nil
        }
        return value
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard let text = string(node, what) else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default:
            report(node.mark, "expected true or false for '\(what)', got '\(text)'")
            return nil
        }
    }

    /// A duration in nanoseconds; zero is refused unless `allowZero`, since most settings are meaningless at 0.
    mutating func duration(_ node: YAMLNode, _ what: String, allowZero: Bool = false) -> UInt64? {
        guard let text = node.scalarText else {
            report(node.mark, "expected a duration like 250ms or 2s for '\(what)', got \(node.kindDescription)")
            return nil
        }
        do {
            let nanos = try Quantity.duration(text)
            if nanos == 0 && !allowZero {
                report(node.mark, "'\(what)' must be longer than 0, got '\(text)'")
                return nil
            }
            return nanos
        } catch {
            report(node.mark, error.message, suggestion: error.suggestion)
            return nil
        }
    }

    /// A rate in arrivals per second.
    mutating func rate(_ node: YAMLNode, _ what: String) -> Double? {
        guard let text = node.scalarText else {
            report(node.mark, "expected a rate like 50/s for '\(what)', got \(node.kindDescription)")
            return nil
        }
        do {
            return try Quantity.rate(text)
        } catch {
            report(node.mark, error.message, suggestion: error.suggestion)
            return nil
        }
    }

    /// A word out of a fixed set (`uniform`/`poisson`, `caller`/`callee`/`random`).
    mutating func word(_ node: YAMLNode, _ what: String, among choices: [String]) -> String? {
        guard let text = string(node, what) else { return nil }
        guard choices.contains(text) else {
            let list = choices.joined(separator: ", ")
            report(node.mark, "'\(what)' must be one of \(list), got '\(text)'",
                   suggestion: Suggestion.closest(to: text, among: choices))
            return nil
        }
        return text
    }
}
