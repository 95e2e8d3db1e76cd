/// Maps the kind names used in configuration to toxic types, and checks specs against them.
///
/// To add a toxic: write one file under `Toxics/` with a type conforming to `Toxic`, add the type to `kinds`,
/// and give it a test file under `Tests/FaultProxyTests/`.
public enum ToxicRegistry {
    /// Every registered toxic type, in the order they are listed in messages.
    public static let kinds: [any Toxic.Type] = [
        LatencyToxic.self, BandwidthToxic.self, SlowCloseToxic.self, TimeoutToxic.self,
        ResetPeerToxic.self, SlicerToxic.self, LimitDataToxic.self,
    ]

    /// The registered kind names.
    public static var names: [String] { kinds.map { $0.kind } }

    /// The attributes a kind accepts, or nil for an unknown kind.
    public static func attributes(of kind: String) -> [ToxicAttribute]? {
        type(of: kind)?.attributes
    }

    /// Checks `spec` and makes its toxic, with missing attributes at their defaults.
    /// Throws the one problem, or `.invalidToxics` listing all of them when there are several.
    public static func make(_ spec: ToxicSpec) throws(FaultProxyError) -> any Toxic {
        let problems = check(spec)
        if problems.count == 1 { throw problems[0] }
        if !problems.isEmpty { throw .invalidToxics(problems) }
        let toxicType = type(of: spec.kind)!
        var values: [String: Double] = [:]
        for attribute in toxicType.attributes {
            values[attribute.name] = spec.attributes[attribute.name] ?? attribute.defaultValue
        }
        return toxicType.init(attributes: values)
    }

    /// Every problem with a list of specs at once (each spec's, and names that are empty or repeated).
    public static func validate(_ specs: [ToxicSpec]) -> [FaultProxyError] {
        var problems: [FaultProxyError] = []
        var seen: Set<String> = []
        for spec in specs {
            if spec.name.isEmpty {
                problems.append(.badName(toxic: spec.name, reason: "the name must not be empty"))
            } else if !seen.insert(spec.name).inserted {
                problems.append(.badName(toxic: spec.name, reason: "the name is used by another toxic in the list"))
            }
            problems += check(spec)
        }
        return problems
    }

    /// The problems of one spec, ignoring its name.
    static func check(_ spec: ToxicSpec) -> [FaultProxyError] {
        guard let toxicType = type(of: spec.kind) else {
            return [.unknownKind(toxic: spec.name, kind: spec.kind,
                                 suggestion: nearest(to: spec.kind, among: names), known: names)]
        }
        var problems: [FaultProxyError] = []
        if !(0...1).contains(spec.toxicity) {
            problems.append(.toxicityOutOfRange(toxic: spec.name, value: spec.toxicity))
        }
        let known = toxicType.attributes.map(\.name)
        for (name, value) in spec.attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = toxicType.attributes.first(where: { $0.name == name }) else {
                problems.append(.unknownAttribute(toxic: spec.name, kind: spec.kind, attribute: name,
                                                  suggestion: nearest(to: name, among: known), known: known))
                continue
            }
            if !value.isFinite || value < attribute.minimum || value > attribute.maximum {
                problems.append(.attributeOutOfRange(toxic: spec.name, attribute: name, value: value,
                                                     minimum: attribute.minimum, maximum: attribute.maximum))
            }
        }
        return problems
    }

    /// Checks and makes a whole list, for `FaultProxy.setToxics`.
    static func build(_ specs: [ToxicSpec]) throws(FaultProxyError) -> [BuiltToxic] {
        let problems = validate(specs)
        if problems.count == 1 { throw problems[0] }
        if !problems.isEmpty { throw .invalidToxics(problems) }
        var built: [BuiltToxic] = []
        for spec in specs { built.append(BuiltToxic(spec: spec, toxic: try make(spec))) }
        return built
    }

    private static func type(of kind: String) -> (any Toxic.Type)? {
        kinds.first { $0.kind == kind }
    }

    /// The closest candidate by edit distance, if it is close enough to be a likely typo.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let lowered = String(word.lowercased().map { $0 == "-" ? "_" : $0 })
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(Array(lowered.utf8), Array(candidate.utf8))
            if distance <= max(2, candidate.count / 3), distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where j <= b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
