import Metrics

/// Everything a report is written from: the facts of the run, its merged measurements and its verdict.
public struct RunResult: Sendable {
    public var facts: RunFacts
    /// Merged recorder of all workers (and shards); intervals still open are included.
    public var recorder: Recorder
    public var verdict: Verdict
    /// Things the reader must know, e.g. "harness lag exceeded 50 ms; latencies may be inflated".
    public var notes: [String]
    /// Notes that start so are first-contact diagnoses (a run against a new server that went nowhere, with the
    /// fix): the report's banner leads with them.
    public static let diagnosisPrefix = "first contact: "
    /// Fault windows to shade on the time-series charts.
    public var faultWindows: [FaultSpan]
    /// Each threshold of the scenario with what was measured; empty when the scenario sets none.
    public var thresholds: [ThresholdResult]
    /// The knee of a ramp, when the scenario has a `capacity:` section.
    public var capacity: CapacityResult?
    /// Where callstorm itself stopped keeping up (`harness:` limit), if it did: the verdict leads with it.
    public var harness: HarnessSaturation?
    /// The history checker's findings (report.html's Races section); nil when the run has no history.
    public var races: RacesSection?
    /// trace.jsonl's lines (`run --trace N`), for report.html's Trace section; nil when the run traced nothing.
    public var trace: [String]?

    public init(
        facts: RunFacts, recorder: Recorder, verdict: Verdict, notes: [String] = [], faultWindows: [FaultSpan] = [],
        thresholds: [ThresholdResult] = []
    ) {
        self.facts = facts
        self.recorder = recorder
        self.verdict = verdict
        self.notes = notes
        self.faultWindows = faultWindows
        self.thresholds = thresholds
    }

    /// Every run-total histogram the report shows, the flow-step ones (`join.fulfillment@incoming-1to1/answer`)
    /// included: all recorded by the driver, so exact whatever actions.csv samples.
    public var histograms: [String: HdrHistogram] { recorder.histograms }

    /// Per flow step (`join@incoming-1to1/answer`), its actions' outcomes by label, from the recorder's
    /// `step_outcome.` counters.
    public var stepOutcomes: [String: [String: Int64]] { MetricName.stepOutcomes(in: recorder.counters) }

    public var ratios: RunRatios { RunRatios(counters: recorder.counters) }

    /// Every action and push accounted for.
    public var books: Books { Books(counters: recorder.counters) }
}
