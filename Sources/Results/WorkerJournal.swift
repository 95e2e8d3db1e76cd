import Foundation
import Metrics
import RunFormats
import SystemCalls

/// What one worker streams into the run directory while it runs, so a crash or SIGKILL loses at most the last
/// checkpoint interval: actions and pushes as CSV rows, the operation history, and its recorder through a
/// `RecorderCheckpointer` (seconds that are over leave memory as segments; totals in a small snapshot).
///
/// Ownership rule: used only on its worker's queue.
public final class WorkerJournal {
    public struct Configuration: Sendable {
        public var directory: URL
        /// Rows kept for actions.csv / pushes.csv: 1 keeps every row, 10 keeps one in ten (histograms stay exact).
        public var sampleEvery: Int
        /// Seconds between recorder snapshots (and fsyncs).
        public var checkpointSeconds: Int
        public init(directory: URL, sampleEvery: Int = 1, checkpointSeconds: Int = 2) {
            self.directory = directory
            self.sampleEvery = max(1, sampleEvery)
            self.checkpointSeconds = max(1, checkpointSeconds)
        }
    }

    public let worker: Int
    private let configuration: Configuration
    private let actions: BufferedFile
    private let pushes: BufferedFile
    private let history: BufferedFile
    private var actionCount = 0
    private var pushCount = 0
    private var lastCheckpointSecond = -1
    private let recorderFiles: RecorderCheckpointer

    /// Raw results live under `<run>/raw/` (`RunBundle.raw`); `callstorm report` rebuilds every report from them.
    public static func rawDirectory(_ run: URL) -> URL { RunBundle(run).raw }

    public init(configuration: Configuration, worker: Int) throws {
        self.worker = worker
        self.configuration = configuration
        let bundle = RunBundle(configuration.directory)
        try FileManager.default.createDirectory(at: bundle.raw, withIntermediateDirectories: true)
        actions = try BufferedFile(bundle.workerRows(.actions, worker: worker), header: ActionRow.header)
        pushes = try BufferedFile(bundle.workerRows(.pushes, worker: worker), header: PushRow.header)
        history = try BufferedFile(bundle.workerHistory(worker), header: nil)
        recorderFiles = try RecorderCheckpointer(directory: bundle.raw, stem: RunBundle.workerRecorderStem(worker))
    }

    /// The row is written through a closure that borrows it: the method reference `row.appendCSV` copied the
    /// row into a context (a retain and a release of each of its texts, ~6 of each a row).
    public func action(_ row: ActionRow) {
        actionCount += 1
        if actionCount % configuration.sampleEvery == 0 { actions.appendLine { row.appendCSV(to: &$0) } }
    }

    /// An actions.csv row from its fields (`ActionRow.appendCSV`), for the rows the sample keeps only.
    public func action(id: UInt64, kind: String, step: String, device: String, conversation: String,
                       plannedNanos: UInt64, startedNanos: UInt64, finishedNanos: UInt64, outcome: String,
                       reason: String) {
        actionCount += 1
        guard actionCount % configuration.sampleEvery == 0 else { return }
        actions.appendLine {
            ActionRow.appendCSV(id: id, kind: kind, step: step, device: device, conversation: conversation,
                                plannedNanos: plannedNanos, startedNanos: startedNanos, finishedNanos: finishedNanos,
                                outcome: outcome, reason: reason, to: &$0)
        }
    }

    public func push(_ row: PushRow) {
        pushCount += 1
        if pushCount % configuration.sampleEvery == 0 { pushes.appendLine { row.appendCSV(to: &$0) } }
    }

    /// One line of the operation history (docs/CHECKER.md): every invocation, completion, push and final view.
    /// Never sampled: the checker needs all of it.
    /// `write` appends the line's bytes (without the newline) straight into the file's buffer.
    public func history(_ write: (inout [UInt8]) -> Void) { history.appendLine(write) }

    /// Called about once a second with the current second; every `checkpointSeconds` it flushes the rows and
    /// checkpoints the recorder, which gives up the seconds that are over (see `RecorderCheckpointer`).
    /// `adjust` makes the snapshot's view, e.g. with what is in flight now counted as in flight at stop.
    public func tick(_ recorder: inout Recorder, second: Int, adjust: (Recorder) -> Recorder = { $0 }) {
        guard second - lastCheckpointSecond >= configuration.checkpointSeconds else { return }
        lastCheckpointSecond = second
        checkpoint(&recorder, second: second, adjust: adjust)
    }

    /// Writes the rows out and checkpoints the recorder now; the rows' fsync happens on the checkpoint writer's
    /// queue, so a slow disk never stalls this worker's timers.
    public func checkpoint(_ recorder: inout Recorder, second: Int, adjust: (Recorder) -> Recorder = { $0 }) {
        actions.flush(sync: false)
        pushes.flush(sync: false)
        history.flush(sync: false)
        recorderFiles.checkpoint(&recorder, second: second, syncing: [actions.fd, pushes.fd, history.fd],
                                 adjust: adjust)
    }

    /// Writes everything, waits until it is on disk, and returns the worker's whole recorder (the segments
    /// written during the run added back), for the end-of-run report.
    public func close(_ recorder: Recorder) -> Recorder {
        recorderFiles.flush()  // no fsync of a row file may still be queued once its descriptor closes
        actions.close()
        pushes.close()
        history.close()
        return recorderFiles.close(recorder)
    }
}

/// Appends lines through a 64 KiB buffer; `flush(sync:)` writes it out and optionally fsyncs.
final class BufferedFile {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(_ url: URL, header: String?) throws {
        fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        buffer.reserveCapacity(1 << 16)
        if let header { append(header) }
    }

    func append(_ line: String) {
        appendLine { $0.append(contentsOf: line.utf8) }
    }

    func appendLine(_ write: (inout [UInt8]) -> Void) {
        write(&buffer)
        buffer.append(10)
        if buffer.count >= 1 << 16 { flush(sync: false) }
    }

    func flush(sync: Bool) {
        _ = buffer.withUnsafeBytes { bytes in SystemCall.writeAll(bytes) { SystemCall.write(fd, $0) } }
        buffer.removeAll(keepingCapacity: true)
        if sync { fsync(fd) }
    }

    func close() {
        flush(sync: true)
        Foundation.close(fd)
    }
}
