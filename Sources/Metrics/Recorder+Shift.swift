// MARK: - Aligning shards

extension Recorder {
    /// This recorder with every per-second series (intervals, counter series, gauges) moved `seconds` later,
    /// and totals unchanged. `callstorm merge` uses it to put shards whose second 0 began on different
    /// wall-clock seconds onto one time axis before `merge`. Seconds shifted below 0 land on second 0.
    public func shifted(bySeconds seconds: Int) -> Recorder {
        guard seconds != 0 else { return self }
        func move(_ s: Int) -> Int { Swift.max(0, s + seconds) }
        var result = Recorder(
            runStartNanos: runStartNanos, lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue, significantDigits: significantDigits)
        for i in 0..<metrics.count {
            let state = metrics[i]
            var moved = newMetricState()
            moved.total = state.total
            for (second, interval) in state.allIntervals {
                let target = move(second)
                moved.sealed[target] = moved.sealed[target].map { $0.adding(interval) } ?? interval
            }
            result.metrics[result.metrics.index(of: metrics.metric(at: i)) { moved }] = moved
        }
        for i in 0..<counterStates.count {
            let state = counterStates[i]
            var moved = CounterState(total: state.total)
            for (second, value) in state.allSeries { moved.perSecond[move(second), default: 0] += value }
            result.counterStates[result.counterStates.index(of: counterStates.metric(at: i)) { moved }] = moved
        }
        for (name, series) in gauges {
            var moved: [Int: Double] = [:]
            for (second, value) in series { moved[move(second)] = value }
            result.gauges[name] = moved
        }
        return result
    }
}
