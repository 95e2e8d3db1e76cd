import Thresholds

/// The `slo:` section: a mapping from threshold keys to comparisons, each either a string (`"< 1s"`) or a
/// mapping `{ threshold: "< 1s", abort_on_fail: true }`.
extension ScenarioDecoder {
    mutating func slo(_ node: YAMLNode) -> [Threshold]? {
        guard case .mapping(let pairs, _) = node else {
            report(node.mark, "expected 'slo' to map metrics to limits, like '{ push_to_report.p99: \"< 1s\" }', "
                + "got \(node.kindDescription)")
            return nil
        }
        let errorsBefore = errors.count
        var thresholds: [Threshold] = []
        for pair in pairs {
            guard let key = pair.key.scalarText else {
                report(pair.key.mark, "keys in 'slo' must be metric names, got \(pair.key.kindDescription)")
                continue
            }
            var expressionNode = pair.value
            var abortOnFail = false
            if case .mapping = pair.value {
                guard let fields = fields(of: pair.value, in: "'slo.\(key)'", known: ["threshold", "abort_on_fail"],
                                          required: ["threshold"]),
                      let threshold = fields["threshold"] else { continue }
                expressionNode = threshold
                if let abort = fields["abort_on_fail"] {
                    guard let value = bool(abort, "abort_on_fail") else { continue }
                    abortOnFail = value
                }
            }
            guard let expression = expressionNode.scalarText, !expressionNode.isNull else {
                report(expressionNode.mark, "expected a comparison such as \"< 1s\" for '\(key)' in 'slo', "
                    + "got \(expressionNode.kindDescription)")
                continue
            }
            let source = "\(file):\(pair.key.mark.line):\(pair.key.mark.column)"
            if !key.contains("."), let near = suggestion(forSLOKey: key) {
                // A bare name is read as a counter, so a misspelt ratio would silently compare a counter that
                // never exists (always 0).
                report(pair.key.mark, "unknown ratio '\(key)' in 'slo'; ratios are "
                    + Threshold.Ratio.allCases.map(\.rawValue).joined(separator: ", "), suggestion: near)
                continue
            }
            do {
                thresholds.append(try Threshold.parse(key: key, expression: expression, abortOnFail: abortOnFail,
                                                      source: source))
            } catch {
                let mark = error.message.contains("after") || error.message.contains("comparison")
                    ? expressionNode.mark : pair.key.mark
                report(mark, error.message, suggestion: suggestion(forSLOKey: key))
            }
        }
        return errors.count == errorsBefore ? thresholds : nil
    }

    /// A likely intended ratio name for a misspelt one (`deadline_miss_ratio` → `deadline_miss_rate`).
    private func suggestion(forSLOKey key: String) -> String? {
        let names = Threshold.Ratio.allCases.map(\.rawValue)
        guard !names.contains(key) else { return nil }
        return Suggestion.closest(to: key, among: names)
    }
}
