import EventPolling
import Foundation
import Metrics
import Locking
import SystemCalls

/// Streams one recorder into the run directory so that its memory and its checkpoints stay small however long
/// the run: seconds that are over are detached from the recorder and appended once, as a segment, to
/// `<stem>.segments.jsonl`; the snapshot `<stem>.json` holds the totals and the last seconds only, and is
/// replaced atomically. `RunResults.loadRecorder` adds the segments back.
///
/// Consistency after a kill at any instant: each segment line carries its number, and each snapshot the number
/// of the last segment it complements. The writer appends (and fsyncs) a segment before it writes a snapshot
/// that counts it, so a reader uses the segments up to the snapshot's number and ignores any later or cut one:
/// no second is counted twice or lost.
///
/// Ownership rule: `checkpoint` and `close` are called from one thread (the owner's queue); encoding and
/// writing happen on the process's background thread (`BackgroundThread.shared`, SCHED_BATCH by default), from
/// images that share no buffer with the live recorder. `flush` and `close` must not be called on that thread.
///
/// Why that thread: the writers of the two workers' and the harness's recorders ran on libdispatch's pool threads
/// at the workers' own priority, all every two seconds (the JSON of each ~0.4 MB snapshot, the fsyncs), each
/// taking the core from a worker as it woke; callstorm's lag p99 rose above 1 ms every other second on the
/// capacity bench (issue 33). Blocks posted from one thread run in order, so segments still precede the
/// snapshot that counts them.
public final class RecorderCheckpointer {
    public let snapshotURL: URL
    public let segmentsURL: URL
    /// Seconds kept in memory before the current one: a late sample for them still lands in the recorder.
    private let keepSeconds: Int
    private var lastSegment = 0
    private let writer = BackgroundThread.shared
    private let pending = PendingCheckpoints()
    private let segmentsFD: Int32
    /// Every segment written so far, in order, while they hold at most `heldSlotLimit` sparse slots together
    /// (nil once they held more): `close` adds these back instead of reading and parsing the segments file. That
    /// read was ~25 k instructions per SIP call in the instructions bench at 20 calls/s (a second's segment parsed
    /// back at the end for each second of the run). A long or busy run passes the limit, lets them go and reads the
    /// file as before, so a soak's memory stays flat.
    private var heldSegments: [Recorder]? = []
    private var heldSlots = 0
    private let heldSlotLimit: Int

    /// - Parameter stem: file name without extension inside `directory`, e.g. `recorder-w0`.
    /// - Parameter heldSlotLimit: sparse slots (12 bytes each) of written segments kept in memory for `close`;
    ///   0 keeps none. The default, ~6 MB, holds several minutes of seconds at the bench's rates.
    public init(directory: URL, stem: String, keepSeconds: Int = 2, heldSlotLimit: Int = 500_000) throws {
        snapshotURL = directory.appendingPathComponent(RunBundle.snapshotName(stem: stem))
        segmentsURL = directory.appendingPathComponent(RunBundle.segmentsName(stem: stem))
        self.keepSeconds = max(0, keepSeconds)
        self.heldSlotLimit = max(0, heldSlotLimit)
        segmentsFD = open(segmentsURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard segmentsFD >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: segmentsURL.path])
        }
    }

    deinit { Glibc.close(segmentsFD) }

    /// Detaches the seconds before `second - keepSeconds` into a segment and queues it with a snapshot of
    /// what remains (`adjust` may add to the snapshot, e.g. what is in flight now, without touching `recorder`).
    ///
    /// Segments queue up (each is written once; none may be lost); of the snapshots only the newest waits, so a
    /// slow disk stretches the interval between snapshots instead of growing memory.
    ///
    /// `syncing` names descriptors the owner has written to (its row files): the writer fsyncs them before the
    /// segment and snapshot, off the owner's queue, where each fsync took ~20 ms of wall time (measured).
    public func checkpoint(_ recorder: inout Recorder, second: Int, syncing: [Int32] = [],
                           adjust: (Recorder) -> Recorder = { $0 }) {
        let segment = recorder.detachSeries(before: second - keepSeconds)
        var numbered: (Int, Recorder)?
        if !segment.isEmpty {
            lastSegment += 1
            numbered = (lastSegment, segment)
            hold(segment)
        }
        enqueue(segment: numbered, snapshot: (lastSegment, adjust(recorder).frozen), syncing: syncing)
    }

    /// Hands a segment (if any) and a snapshot to the writer queue, starting it unless it is already due to run.
    /// Their images are made there: the segment is detached (no buffer shared with the recorder) and the snapshot
    /// frozen (`Recorder.frozen`), so the owner's turn ends without the image's sums and dictionaries.
    private func enqueue(segment: (Int, Recorder)?, snapshot: (Int, RecorderFreeze), syncing: [Int32]) {
        let scheduleWriter = pending.state.withLock { state -> Bool in
            if let segment { state.segments.append(segment) }
            state.snapshot = snapshot
            for fd in syncing where !state.syncing.contains(fd) { state.syncing.append(fd) }
            defer { state.writerScheduled = true }
            return !state.writerScheduled
        }
        guard scheduleWriter else { return }
        writer.post { [pending, segmentsFD, snapshotURL] in
            let (segments, snapshot, syncing) = pending.state.withLock { state in
                defer {
                    state.segments.removeAll()
                    state.snapshot = nil
                    state.syncing.removeAll()
                    state.writerScheduled = false
                }
                return (state.segments, state.snapshot, state.syncing)
            }
            for fd in syncing { fsync(fd) }
            Self.write(segments: segments, snapshot: snapshot, segmentsFD: segmentsFD, snapshotURL: snapshotURL)
        }
    }

    /// Returns once everything queued so far is on disk.
    public func flush() { writer.sync {} }

    /// Writes the recorder as the final snapshot, waits until everything is on disk, and returns the whole
    /// recorder: what is still in memory plus every segment written before.
    public func close(_ recorder: Recorder) -> Recorder {
        enqueue(segment: nil, snapshot: (lastSegment, recorder.frozen), syncing: [])
        flush()
        var whole = recorder
        if let heldSegments {
            for segment in heldSegments { whole.merge(segment) }
        } else {
            try? RunResults.readSegments(segmentsURL, upTo: lastSegment) { whole.merge($0) }
        }
        return whole
    }

    /// Keeps a written segment for `close` while the held ones stay under the limit; past it, lets them all go
    /// (`close` reads the file then).
    private func hold(_ segment: Recorder) {
        guard heldSegments != nil else { return }
        heldSlots += segment.sparseSlotCount
        if heldSlots > heldSlotLimit {
            heldSegments = nil
        } else {
            heldSegments!.append(segment)
        }
    }

    private static func write(segments: [(Int, Recorder)], snapshot: (Int, RecorderFreeze)?,
                              segmentsFD: Int32, snapshotURL: URL) {
        if !segments.isEmpty {
            var bytes: [UInt8] = []
            for (number, segment) in segments {
                guard let line = encoded("segment", number, segment.image) else { continue }
                bytes.append(contentsOf: line)
                bytes.append(10)
            }
            _ = bytes.withUnsafeBytes { all in SystemCall.writeAll(all) { SystemCall.write(segmentsFD, $0) } }
            fsync(segmentsFD)
        }
        if let (number, frozen) = snapshot, let bytes = encoded("segments", number, frozen.image) {
            RunResults.replace(snapshotURL, with: Data(bytes))
        }
    }

    /// `{"<key>": number, "recorder": image}`, written by hand (`RecorderImage.appendJSON`); nil for an image
    /// JSON cannot carry (a non-finite gauge, which `Recorder.gauge` already refuses), as `JSONEncoder` threw.
    static func encoded(_ key: StaticString, _ number: Int, _ image: RecorderImage) -> [UInt8]? {
        var bytes: [UInt8] = Array("{\"".utf8)
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":\(number),\"recorder\":".utf8)
        guard image.appendJSON(to: &bytes) else { return nil }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

/// What waits for the writer queue (shared with it, hence the lock).
final class PendingCheckpoints: Sendable {
    struct State {
        var segments: [(Int, Recorder)] = []
        var snapshot: (Int, RecorderFreeze)?
        var syncing: [Int32] = []
        var writerScheduled = false
    }
    let state = Mutex(State())
}
