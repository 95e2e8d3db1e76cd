import CallModel
import Metrics

/// The metrics one flow step's actions are counted under, made once per step and worker (`RunBooks.stepMetrics`):
/// an action's start and end then record by key, instead of spelling seven metric names per action.
final class StepMetrics {
    /// `<flow>/<step>`, as actions.csv and the per-step metric names spell it.
    let step: String
    let started: Metric
    let fulfillment: Metric
    let fulfillmentFromPlanned: Metric
    let stepFulfillment: Metric
    let stepFulfillmentFromPlanned: Metric
    /// By outcome label, in `StepMetrics.labels` order: `action.<kind>.<label>` and the step's outcome counter.
    let outcomes: [Metric]
    let stepOutcomes: [Metric]

    /// The outcome labels, as `ActionOutcome.label` spells them.
    static let labels = MetricName.stepOutcomeLabels

    init(kind: ActionKind, flow: String, step stepName: String) {
        let kind = kind.rawValue
        let step = "\(flow)/\(stepName)"
        self.step = step
        started = .action(kind, .started)
        fulfillment = .fulfillment(kind)
        fulfillmentFromPlanned = .fulfillmentFromPlanned(kind)
        stepFulfillment = .fulfillment(kind, step: step)
        stepFulfillmentFromPlanned = .fulfillmentFromPlanned(kind, step: step)
        outcomes = Self.labels.map { Metric.action(kind, label: $0) }
        stepOutcomes = Self.labels.map { Metric.stepOutcome(kind, step: step, label: $0) }
    }

    /// An action's end: its outcome counted and its two figures recorded, each under the kind's metric and the
    /// step's (the per-step figures come from here only: every action, whatever actions.csv samples).
    func recordFinished(outcome: Int, micros: Int64, fromPlanned: Int64, into recorder: inout Recorder,
                        at now: UInt64) {
        recorder.count(outcomes[outcome], atNanos: now)
        recorder.record(fulfillment, micros: micros, atNanos: now)
        recorder.record(fulfillmentFromPlanned, micros: fromPlanned, atNanos: now)
        recorder.record(stepFulfillment, micros: micros, atNanos: now)
        recorder.record(stepFulfillmentFromPlanned, micros: fromPlanned, atNanos: now)
        recorder.count(stepOutcomes[outcome], atNanos: now)
    }

    /// The index of an outcome's label in `labels`: a failure whose effect is unknown (history's `info`) is
    /// counted `unknown`, so counters.csv and history.jsonl say one word.
    static func index(of outcome: ActionOutcome, effectUnknown: Bool) -> Int {
        switch outcome {
        case .fulfilled: return fulfilledIndex
        case .failed: return effectUnknown ? unknownIndex : failedIndex
        case .timedOut: return timedOutIndex
        }
    }

    private static let fulfilledIndex = labels.firstIndex(of: MetricName.ActionCounter.fulfilled.rawValue)!
    private static let failedIndex = labels.firstIndex(of: MetricName.ActionCounter.failed.rawValue)!
    private static let unknownIndex = labels.firstIndex(of: MetricName.ActionCounter.unknown.rawValue)!
    private static let timedOutIndex = labels.firstIndex(of: MetricName.ActionCounter.timedOut.rawValue)!

    /// What the table is keyed by: the action's kind and its flow step.
    struct Key: Hashable {
        let kind: ActionKind
        let flow: String
        let step: String
    }
}
