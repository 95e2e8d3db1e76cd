/// `replay:`: run one planned call of a scenario again, alone — what `repro-<n>.yaml` files say.
///
/// The call keeps its index, so its flow, think times and branch draws come from the same random streams as in
/// the run that found the violation; `offset` pins every `together` step of it to the offset it raced at.
public struct Replay: Sendable, Equatable {
    /// The arrival index (`call` in history.jsonl) to run.
    public var call: Int
    /// Overrides the offset of the call's `together` steps (nanoseconds); nil keeps the scenario's.
    public var offsetNanos: Int64?
    /// The checker rule the violation broke, which `callstorm replay` looks for.
    public var rule: String?
    /// Where the violation was found (a run directory and violation number), for people reading the file.
    public var from: String?

    public init(call: Int, offsetNanos: Int64? = nil, rule: String? = nil, from: String? = nil) {
        self.call = call
        self.offsetNanos = offsetNanos
        self.rule = rule
        self.from = from
    }
}

extension ScenarioDecoder {
    static let replayKeys = ["call", "offset", "rule", "from"]

    /// `replay: { call: 137, offset: 3ms, rule: merge-yields-union, from: "Reports/run#2" }`.
    mutating func replay(_ node: YAMLNode) -> Replay? {
        guard let f = fields(of: node, in: "'replay'", known: Self.replayKeys, required: ["call"]),
              let callNode = f["call"], let call = integer(callNode, "call", atLeast: 0) else { return nil }
        var replay = Replay(call: call)
        if let o = f["offset"] {
            guard let text = string(o, "offset"), let v = signedOffset(o, text) else { return nil }
            replay.offsetNanos = v
        }
        replay.rule = f["rule"].flatMap { string($0, "rule") }
        replay.from = f["from"].flatMap { string($0, "from") }
        return replay
    }
}
