import Metrics

/// A flow's counters (`flow.<name>.started`, `.completed`, `.failed_calls`, `.missed`, `.failed`), made once per
/// flow and worker (`CallLauncher.flowMetrics`) and shared by its calls: a call's start and end then count by key
/// instead of spelling a name and interning it under `MetricKeys`' process-wide lock at every call.
final class FlowMetrics: Sendable {
    let started: Metric
    let completed: Metric
    let failedCalls: Metric
    let missed: Metric
    /// A step the flow could not run (`FlowInterpreter+End`), or an unanswered call the flow did not declare.
    let failed: Metric

    init(flow: String) {
        started = .flow(flow, "started")
        completed = .flow(flow, "completed")
        failedCalls = .flow(flow, "failed_calls")
        missed = .flow(flow, "missed")
        failed = .flow(flow, "failed")
    }
}
