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
    public var faultWindows: [FaultWindow]
    /// Each threshold of the scenario with what was measured; empty when the scenario sets none.
    public var thresholds: [ThresholdResult]
    /// Per flow step figures rebuilt from actions.csv (see `StepMetrics`); empty when there is none.
    public var steps: StepMetrics
    /// The knee of a ramp, when the scenario has a `capacity:` section.
    public var capacity: CapacityResult?
    /// Where callstorm itself stopped keeping up (`harness:` limit), if it did: the verdict leads with it.
    public var harness: HarnessSaturation?
    /// The history checker's findings (report.html's Races section); nil when the run has no history.
    public var races: RacesSection?
    /// trace.jsonl's lines (`run --trace N`), for report.html's Trace section; nil when the run traced nothing.
    public var trace: [String]?

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

    /// Every run-total histogram the report shows: the recorder's, plus the flow-step histograms. Where the
    /// driver recorded a step itself — `<kind>.fulfillment@<flow>/<step>`, or `step.<flow>/<step>` (the
    /// fulfillment of that step's action) — the recorded, unsampled histogram wins over the one rebuilt from
    /// actions.csv.
    public var histograms: [String: HdrHistogram] {
        let recorded = recorder.histograms
        var all = recorded
        for (name, rebuilt) in steps.histograms where all[name] == nil {
            if let at = name.range(of: MetricName.fulfillmentSuffix + "@"),
               let exact = recorded[MetricName.step(String(name[at.upperBound...]))] {
                all[name] = exact
            } else {
                all[name] = rebuilt
            }
        }
        return all
    }

    public var ratios: RunRatios { RunRatios(counters: recorder.counters) }

    /// Every action and push accounted for.
    public var books: Books { Books(counters: recorder.counters) }
}
