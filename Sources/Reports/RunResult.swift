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

    public init(
        facts: RunFacts, recorder: Recorder, verdict: Verdict, notes: [String] = [], faultWindows: [FaultWindow] = []
    ) {
        self.facts = facts
        self.recorder = recorder
        self.verdict = verdict
        self.notes = notes
        self.faultWindows = faultWindows
    }
}
