import Thresholds

/// The `harness:` section: how callstorm judges itself.
/// `{ lag_limit: 10ms, percentile: 99, window: 5s, min_samples: 20, on_saturation: report | end_arrivals | abort }`.
extension ScenarioDecoder {
    static let harnessKeys = ["lag_limit", "percentile", "window", "min_samples", "on_saturation"]

    mutating func harness(_ node: YAMLNode) -> HarnessLimit? {
        guard let fields = fields(of: node, in: "'harness'", known: Self.harnessKeys, required: []) else {
            return nil
        }
        let errorsBefore = errors.count
        var limit = HarnessLimit()
        if let n = fields["lag_limit"], let nanos = duration(n, "harness.lag_limit") {
            limit.lagLimitMicros = Int64(nanos / 1_000)
        }
        if let n = fields["percentile"], let p = number(n, "harness.percentile") {
            if p <= 0 || p >= 100 {
                report(n.mark, "'harness.percentile' must be between 0 and 100 (exclusive), like 99 or 99.9")
            }
            limit.percentile = p
        }
        if let w = fields["window"], let nanos = duration(w, "harness.window") {
            if nanos % 1_000_000_000 != 0 {
                report(w.mark, "'harness.window' must be whole seconds (series are per second), like 5s")
            }
            limit.windowSeconds = max(1, Int(nanos / 1_000_000_000))
        }
        if let n = fields["min_samples"], let minimum = integer(n, "harness.min_samples", atLeast: 1) {
            limit.minimumSamples = minimum
        }
        if let n = fields["on_saturation"],
           let action = word(n, "harness.on_saturation", among: HarnessLimit.Action.allCases.map(\.rawValue))
            .flatMap(HarnessLimit.Action.init) {
            limit.action = action
        }
        return errors.count == errorsBefore ? limit : nil
    }
}
