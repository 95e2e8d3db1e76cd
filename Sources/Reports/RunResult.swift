import Metrics

/// Everything a report is written from: the facts of the run, its merged measurements and its verdict.
public struct RunResult: Sendable {
    public var facts: RunFacts
    /// Merged recorder of all workers (and shards); intervals still open are included.
    public var recorder: Recorder
    public var verdict: Verdict
    /// Things the reader must know, e.g. "harness lag exceeded 50 ms; latencies may be inflated".
    public var notes: [String]
    /// Fault windows to shade on the time-series charts.
    public var faultWindows: [FaultWindow]
    /// Each threshold of the scenario with what was measured; empty when the scenario sets none.
    public var thresholds: [ThresholdResult]
    /// Per flow step figures rebuilt from actions.csv (see `StepMetrics`); empty when there is none.
    public var steps: StepMetrics

    public init(
        facts: RunFacts, recorder: Recorder, verdict: Verdict, notes: [String] = [], faultWindows: [FaultWindow] = [],
        thresholds: [ThresholdResult] = [], steps: StepMetrics = StepMetrics()
    ) {
        self.facts = facts
        self.recorder = recorder
        self.verdict = verdict
        self.notes = notes
        self.faultWindows = faultWindows
        self.thresholds = thresholds
        self.steps = steps
    }

    /// Every run-total histogram the report shows: the recorder's, plus flow-step histograms the recorder does
    /// not already hold (a driver that records `<kind>.fulfillment@<flow>/<step>` itself wins, being unsampled).
    public var histograms: [String: HdrHistogram] {
        recorder.histograms.merging(steps.histograms) { recorded, _ in recorded }
    }

    public var ratios: RunRatios { RunRatios(counters: recorder.counters) }
}
