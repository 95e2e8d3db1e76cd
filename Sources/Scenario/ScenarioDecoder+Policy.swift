import CallModel

/// `target.policy`: the choices the scenario's server makes where LiveCommunicationKit leaves it free
/// (`ServerPolicy`), which the history checker's policy rules hold it to. On the embedded target it also sets the
/// reference target's behaviour, so one scenario can run the reference in each mode.
extension ScenarioDecoder {
    mutating func policy(_ node: YAMLNode) -> ServerPolicy? {
        guard let fields = fields(of: node, in: "'target.policy'", known: ServerPolicy.keys) else { return nil }
        var policy = ServerPolicy()
        if let value = fields["unmerge"], let word = string(value, "unmerge") {
            let known = ServerPolicy.Unmerge.allCases.map(\.rawValue)
            if let choice = ServerPolicy.Unmerge(rawValue: word) {
                policy.unmerge = choice
            } else {
                report(value.mark, "unknown unmerge policy '\(word)'; known: " + known.joined(separator: ", ")
                    + " (where the member who unmerges stands afterwards)",
                    suggestion: Suggestion.closest(to: word, among: known))
            }
        }
        return policy
    }
}
