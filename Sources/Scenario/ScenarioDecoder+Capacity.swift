import Thresholds

/// The `capacity:` section: `{ limit: { push_to_report.p99: "< 100ms" }, window: 5s, stop: true, min_samples: 20 }`.
extension ScenarioDecoder {
    mutating func capacity(_ node: YAMLNode) -> CapacitySpec? {
        guard let fields = fields(of: node, in: "'capacity'", known: ["limit", "window", "stop", "min_samples"],
                                  required: ["limit"]),
              let limitNode = fields["limit"] else { return nil }
        let errorsBefore = errors.count
        guard case .mapping(let pairs, _) = limitNode, pairs.count == 1, let pair = pairs.first,
              let key = pair.key.scalarText, let expression = pair.value.scalarText, !pair.value.isNull else {
            report(limitNode.mark, "expected 'capacity.limit' as one latency limit such as "
                + "'{ push_to_report.p99: \"< 100ms\" }', got \(limitNode.kindDescription)")
            return nil
        }
        var limit: Threshold?
        do {
            limit = try Threshold.parse(key: key, expression: expression,
                                        source: "\(file):\(pair.key.mark.line):\(pair.key.mark.column)")
        } catch {
            report(pair.value.mark, error.message)
        }
        if let limit, CapacitySpec(limit: limit).latency == nil {
            report(pair.key.mark, "'capacity.limit' must be a latency statistic such as push_to_report.p99 or "
                + "join.fulfillment.max, got '\(key)'")
        }
        var windowSeconds = 5
        if let w = fields["window"], let nanos = duration(w, "capacity.window") {
            if nanos % 1_000_000_000 != 0 {
                report(w.mark, "'capacity.window' must be whole seconds (series are per second), like 5s")
            }
            windowSeconds = Int(nanos / 1_000_000_000)
        }
        let stop = fields["stop"].flatMap { bool($0, "capacity.stop") } ?? true
        let minimum = fields["min_samples"].flatMap { integer($0, "capacity.min_samples", atLeast: 1) } ?? 20
        guard errors.count == errorsBefore, let limit else { return nil }
        return CapacitySpec(limit: limit, windowSeconds: windowSeconds, stopAtKnee: stop, minimumSamples: minimum)
    }
}
