import Locking
import OTLP
import Metrics
import Results

/// What a worker writes down during a run: its recorder, the journal on disk, the notes for the report, and
/// pushes still owed to devices. Shared by the worker's parts (push intake, action sending, sockets, faults),
/// all on the worker's loop, except `lateCounts` and `live`, which other threads read.
final class RunBooks {
    var recorder: Recorder
    let journal: WorkerJournal?
    let runStart: UInt64
    /// Set once `Worker.finish` sealed the recorder: what arrives later is counted in `lateCounts`.
    var sealed = false
    /// Findings worth a line in the report (the first view mismatches).
    private(set) var notes: [String] = []
    /// Pushes waiting in the wheel for a delayed delivery (undelivered if the run stops first).
    var pendingDeliveries: Int64 = 0
    /// Book-keeping for pushes the sink handed over after `finish` sealed the recorder; the driver adds these
    /// counters to the merged recorder once the gateway has stopped.
    let lateCounts = Mutex<[String: Int64]>([:])
    /// Read by the progress line and the metrics endpoint from other threads.
    let live = LiveStats()
    /// The worker's OpenTelemetry spans in the making (`DriverSettings.tracing.spans`); nil when not exporting.
    var tracer: CallTraceBuffer?
    /// Each flow step's action metrics, made at the step's first action (`stepMetrics(for:)`). A list searched by
    /// comparing, not a dictionary: a run has a handful of steps, and hashing the flow's and the step's names at
    /// each action's start and end cost ~1,000 instructions each (issue 33).
    private var stepTable: [(key: StepMetrics.Key, metrics: StepMetrics)] = []

    init(journal: WorkerJournal?, runStart: UInt64) {
        self.journal = journal
        self.runStart = runStart
        self.recorder = Recorder(runStartNanos: runStart)
    }

    /// The metrics of `record`'s kind and flow step, made once per step.
    func stepMetrics(for record: ActionRecord) -> StepMetrics {
        // Compared field by field where each entry lies: making a key and copying each entry out retained and
        // released both names per entry (~5,000 instructions per SIP hold call).
        let kind = record.action.kind
        for i in stepTable.indices where stepTable[i].key.kind == kind && stepTable[i].key.step == record.step
            && stepTable[i].key.flow == record.flow {
            return stepTable[i].metrics
        }
        let metrics = StepMetrics(kind: kind, flow: record.flow, step: record.step)
        stepTable.append((StepMetrics.Key(kind: kind, flow: record.flow, step: record.step), metrics))
        return metrics
    }

    func note(_ line: String, limit: Int) {
        if notes.count < limit { notes.append(line) }
    }

    func count(_ metric: Metric, by n: Int64 = 1, at now: UInt64) { recorder.count(metric, by: n, atNanos: now) }
    func record(_ metric: Metric, micros: Int64, at now: UInt64) {
        recorder.record(metric, micros: micros, atNanos: now)
    }

    /// Adds to the counters kept for after `finish` (called on the loop).
    func countLate(_ metric: Metric, by n: Int64 = 1) {
        lateCounts.withLock { $0[metric.name, default: 0] += n }
    }
}
